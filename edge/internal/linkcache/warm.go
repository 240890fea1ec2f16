package linkcache

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"kurz/shared/pgstore"
)

// WarmStats describes one warm-up.
type WarmStats struct {
	Links   int           // links compiled and cached
	Skipped int           // rows not cached: invalidated meanwhile, or not servable
	Bytes   int64         // summed cost of the cached links
	Took    time.Duration // whole warm-up, query included
}

// errCleared: the whole cache was cleared (listener resync) during a
// warm-up, so the rows read before it may be stale.
var errCleared = errors.New("link cache cleared during warm-up")

const (
	warmBatch    = 512 // rows per hand-off from the reader to the compilers
	warmAttempts = 3   // a warm-up interrupted by a Clear starts over this often
)

// MarkWarming makes Warming true until the next Warm returns. serve calls
// it before it accepts requests, so /readyz never reports ready between
// start and the warm-up goroutine's first step.
func (c *Cache) MarkWarming() { c.warming.Store(true) }

// Warming reports whether a warm-up is marked or running.
func (c *Cache) Warming() bool { return c.warming.Load() }

// Warm bulk-loads up to limit links (most recently updated first, and no
// more than 90% of the byte budget, so that nothing warmed is evicted by
// the warm-up itself) in one streaming query, compiling rows on GOMAXPROCS
// goroutines while the next rows arrive. Requests keep being served (and
// missing links lazily loaded) meanwhile.
//
// Invalidation keeps winning: a row is cached only when its key's
// generation is unchanged since before the query was sent, and dropped
// again when an invalidation lands between that check and the Set; a
// Clear (listener resync) restarts the warm-up, because every row read so
// far may be older than the change that was missed.
func (c *Cache) Warm(ctx context.Context, limit int) (WarmStats, error) {
	defer c.warming.Store(false)
	start := time.Now()
	var (
		st  WarmStats
		err error
	)
	for range warmAttempts {
		st, err = c.warmOnce(ctx, limit)
		if !errors.Is(err, errCleared) {
			break
		}
	}
	st.Took = time.Since(start)
	return st, err
}

// warmer is one warm-up pass's shared state.
type warmer struct {
	c      *Cache
	g0     uint64
	s0     [stripes]uint64
	budget int64

	bytes   atomic.Int64
	links   atomic.Int64
	skipped atomic.Int64
	cleared atomic.Bool
}

func (c *Cache) warmOnce(ctx context.Context, limit int) (WarmStats, error) {
	w := &warmer{c: c, g0: c.global.Load(), budget: c.cfg.MaxBytes / 10 * 9}
	for i := range c.gens {
		w.s0[i] = c.gens[i].Load()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []*pgstore.EdgeLink, 2*runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for b := range batches {
				w.compile(b)
			}
		})
	}
	batch := make([]*pgstore.EdgeLink, 0, warmBatch)
	err := c.store.EdgeLinksRecent(ctx, limit, func(l *pgstore.EdgeLink) bool {
		if c.warmRowHook != nil {
			c.warmRowHook(l)
		}
		if w.bytes.Load() >= w.budget || w.cleared.Load() || c.global.Load() != w.g0 {
			return false
		}
		if batch = append(batch, l); len(batch) == warmBatch {
			batches <- batch
			batch = make([]*pgstore.EdgeLink, 0, warmBatch)
		}
		return true
	})
	if len(batch) > 0 {
		batches <- batch
	}
	close(batches)
	wg.Wait()
	c.links.Wait()
	st := WarmStats{Links: int(w.links.Load()), Skipped: int(w.skipped.Load()), Bytes: w.bytes.Load()}
	if err != nil {
		return st, fmt.Errorf("warm link cache: %w", err)
	}
	if w.cleared.Load() || c.global.Load() != w.g0 {
		return st, errCleared
	}
	return st, nil
}

// compile caches one batch of rows.
//
// The batch's Links live in one slice and their strings in one byte slab
// (two allocations per 512 links instead of two per link): the heap of a
// 1M-link warm-up otherwise ended up fragmented, with live Links and
// strings scattered among the freed rows of the same size classes, and
// the GC has far fewer objects to mark. The price: a slab stays alive
// until its last link is evicted or invalidated, at most 512 entries'
// worth (~100 KB) per slab still referenced.
func (w *warmer) compile(rows []*pgstore.EdgeLink) {
	c := w.c
	links := make([]Link, len(rows))
	slab := newSlab(rows)
	for i, row := range rows {
		if w.cleared.Load() {
			return
		}
		l := &links[i]
		cost, err := compileInto(l, row, slab)
		if err != nil {
			w.skipped.Add(1)
			continue
		}
		key := Key(l.Host(), []byte(l.Alias()))
		stripe := &c.gens[key%stripes]
		if c.global.Load() != w.g0 {
			w.cleared.Store(true) // a Clear since the snapshot: this row may be gone
			return
		}
		if stripe.Load() != w.s0[key%stripes] {
			w.skipped.Add(1) // changed since the snapshot: the next visit loads it
			continue
		}
		if !w.set(key, l, cost) {
			w.skipped.Add(1)
			continue
		}
		// An invalidation or Clear that bumped a generation after the checks
		// above may have run its Del before this Set: undo the Set.
		if c.global.Load() != w.g0 {
			c.links.Del(key)
			w.cleared.Store(true)
			return
		}
		if stripe.Load() != w.s0[key%stripes] {
			c.links.Del(key)
			w.skipped.Add(1)
			continue
		}
		w.links.Add(1)
		w.bytes.Add(cost)
	}
}

// slab hands out the strings of one warm-up batch from a few large
// allocations. Strings that outlive the warm-up (host + alias + dest, rule
// URLs, password hashes) would otherwise be small objects scattered among
// the rows' garbage, each pinning a mostly empty span: before rule URLs
// went into the slab, a 1M-link warm-up left 50-180 MB of such
// fragmentation (edge/PERFORMANCE.md, Memory). A nil *slab allocates on
// the heap (a single link loaded on a miss).
type slab struct {
	buf []byte
	// seen interns the batch's kept strings (campaigns reuse app-store and
	// landing-page URLs across many links): newSlab lists each distinct
	// one with an empty copy, str fills the copy in on first use.
	seen map[string]string
}

// slabChunk is the size of the chunks str adds once the first one is full.
const slabChunk = 16 << 10

// newSlab sizes a slab's first chunk for the strings rows will keep, each
// distinct one once; URLs that parameters make longer spill into further
// chunks.
func newSlab(rows []*pgstore.EdgeLink) *slab {
	n := 0
	seen := make(map[string]string)
	add := func(x string) {
		if _, ok := seen[x]; !ok && x != "" {
			seen[x] = ""
			n += len(x)
		}
	}
	for _, r := range rows {
		n += len(r.Host) + len(r.Alias) + len(r.LongURL)
		for _, x := range []string{r.PasswordHash, r.MetaTitle, r.MetaDescription, r.MetaImage, r.Redirect404, r.DeeplinkIOS, r.DeeplinkAndroid} {
			add(x)
		}
		for _, ts := range [][]pgstore.EdgeTarget{r.Geo, r.Device, r.Language} {
			for _, t := range ts {
				add(t.URL)
			}
		}
	}
	return &slab{buf: make([]byte, 0, n), seen: seen}
}

// pack returns host + alias + dest as one string.
func (s *slab) pack(host, alias, dest string) string {
	if s == nil {
		return packStrings(host, alias, dest)
	}
	n := len(host) + len(alias) + len(dest)
	if n == 0 {
		return ""
	}
	b := s.alloc(n)
	copy(b, host)
	copy(b[len(host):], alias)
	copy(b[len(host)+len(alias):], dest)
	return unsafe.String(&b[0], n)
}

// str returns a copy of x in the slab, the same copy for equal strings.
func (s *slab) str(x string) string {
	if s == nil || x == "" {
		return x
	}
	if y := s.seen[x]; y != "" {
		return y
	}
	b := s.alloc(len(x))
	copy(b, x)
	y := unsafe.String(&b[0], len(x))
	s.seen[x] = y
	return y
}

// alloc returns n bytes of the slab. A chunk is never appended beyond its
// capacity, so the strings handed out earlier stay valid.
func (s *slab) alloc(n int) []byte {
	if len(s.buf)+n > cap(s.buf) {
		s.buf = make([]byte, 0, max(slabChunk, n))
	}
	start := len(s.buf)
	s.buf = s.buf[:start+n]
	return s.buf[start : start+n : start+n]
}

// set stores l, waiting for ristretto's write buffer to drain when it is
// full: ristretto drops Sets under pressure rather than blocking, which a
// bulk fill would otherwise hit for most rows.
func (w *warmer) set(key uint64, l *Link, cost int64) bool {
	for range 100 {
		if w.c.links.Set(key, l, cost) {
			return true
		}
		w.c.links.Wait()
	}
	return false
}

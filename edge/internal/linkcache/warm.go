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
		cost, err := compileInto(l, row, slab.pack)
		if err != nil {
			w.skipped.Add(1)
			continue
		}
		key := Key(l.Host(), []byte(l.Alias()))
		stripe := &c.gens[key%stripes]
		if stripe.Load() != w.s0[key%stripes] {
			w.skipped.Add(1) // changed since the snapshot: the next visit loads it
			continue
		}
		if !w.set(key, l, cost) {
			w.skipped.Add(1)
			continue
		}
		// An invalidation that bumped the generation after the check above
		// may have run its Del before this Set: undo the Set.
		if stripe.Load() != w.s0[key%stripes] {
			c.links.Del(key)
			w.skipped.Add(1)
			continue
		}
		if c.global.Load() != w.g0 {
			w.cleared.Store(true)
			return
		}
		w.links.Add(1)
		w.bytes.Add(cost)
	}
}

// slab hands out the strings of one batch from a single allocation.
type slab struct{ buf []byte }

// newSlab sizes a slab for rows' host, alias and long URL; parameters
// can make a destination longer, and pack then falls back to the heap.
func newSlab(rows []*pgstore.EdgeLink) *slab {
	n := 0
	for _, r := range rows {
		n += len(r.Host) + len(r.Alias) + len(r.LongURL)
	}
	return &slab{buf: make([]byte, 0, n)}
}

// pack returns host + alias + dest as a view of the slab. The slab is
// never appended beyond its capacity, so earlier views stay valid.
func (s *slab) pack(host, alias, dest string) string {
	n := len(host) + len(alias) + len(dest)
	if n == 0 || len(s.buf)+n > cap(s.buf) {
		return packStrings(host, alias, dest)
	}
	start := len(s.buf)
	s.buf = append(append(append(s.buf, host...), alias...), dest...)
	return unsafe.String(&s.buf[start], n)
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

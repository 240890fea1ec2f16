package catalog

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"kurz/shared/link"
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

// warmState is the catalog's warm-up flag and test hook.
type warmState struct {
	warming atomic.Bool // a warm-up is marked or running (see Warm)
	// rowHook, when set (tests only), sees each warm-up row as it
	// arrives: it lets a test land an invalidation mid-stream.
	rowHook func(*link.EdgeLink)
}

// MarkWarming makes Warming true until the next Warm returns. serve calls
// it before it accepts requests, so /readyz never reports ready between
// start and the warm-up goroutine's first step.
func (c *Catalog) MarkWarming() { c.warm.warming.Store(true) }

// Warming reports whether a warm-up is marked or running.
func (c *Catalog) Warming() bool { return c.warm.warming.Load() }

// Warm bulk-loads up to limit links (most recently updated first, and no
// more than 90% of the byte budget, so that nothing warmed is evicted by
// the warm-up itself) in one streaming query, compiling rows on GOMAXPROCS
// goroutines while the next rows arrive. Requests keep being served (and
// missing links lazily loaded) meanwhile.
//
// Invalidation keeps winning (versions.store, against a snapshot taken
// before the query is sent): a row whose key changed since is skipped
// (the next visit loads it); a Clear (listener resync) restarts the
// warm-up, because every row read so far may be older than the change
// that was missed.
func (c *Catalog) Warm(ctx context.Context, limit int) (WarmStats, error) {
	defer c.warm.warming.Store(false)
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
	lc     *linkCache
	snap   *snapshot
	budget int64

	bytes   atomic.Int64
	links   atomic.Int64
	skipped atomic.Int64
	cleared atomic.Bool
}

// stop reports whether the pass must end: a Clear since its snapshot.
func (w *warmer) stop() bool {
	if w.cleared.Load() || w.lc.vers.clearedSince(w.snap) {
		w.cleared.Store(true)
		return true
	}
	return false
}

func (c *Catalog) warmOnce(ctx context.Context, limit int) (WarmStats, error) {
	lc := c.links
	w := &warmer{lc: lc, snap: lc.vers.snapshot(), budget: c.cfg.MaxBytes / 10 * 9}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []*link.EdgeLink, 2*runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for b := range batches {
				w.compile(b)
			}
		})
	}
	batch := make([]*link.EdgeLink, 0, warmBatch)
	src := c.warmSource(ctx, lc.vers.anyChangeAt())
	err := src.EdgeLinksRecent(ctx, limit, func(l *link.EdgeLink) bool {
		if c.warm.rowHook != nil {
			c.warm.rowHook(l)
		}
		if w.bytes.Load() >= w.budget || w.stop() {
			return false
		}
		if batch = append(batch, l); len(batch) == warmBatch {
			batches <- batch
			batch = make([]*link.EdgeLink, 0, warmBatch)
		}
		return true
	})
	if len(batch) > 0 {
		batches <- batch
	}
	close(batches)
	wg.Wait()
	lc.wait()
	st := WarmStats{Links: int(w.links.Load()), Skipped: int(w.skipped.Load()), Bytes: w.bytes.Load()}
	if err != nil {
		return st, fmt.Errorf("warm link cache: %w", err)
	}
	if w.stop() {
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
func (w *warmer) compile(rows []*link.EdgeLink) {
	lc := w.lc
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
		switch lc.vers.store(w.snap.at(key), func() bool { return w.set(key, l, cost) }, func() { lc.c.Del(key) }) {
		case stored:
			w.links.Add(1)
			w.bytes.Add(cost)
		case cleared:
			w.cleared.Store(true) // a Clear since the snapshot: this row may be gone
			return
		default:
			w.skipped.Add(1) // changed since the snapshot (the next visit loads it), or refused
		}
	}
}

// set stores l, waiting for ristretto's write buffer to drain when it is
// full: ristretto drops Sets under pressure rather than blocking, which a
// bulk fill would otherwise hit for most rows.
func (w *warmer) set(key uint64, l *Link, cost int64) bool {
	for range 100 {
		if w.lc.c.Set(key, l, cost) {
			return true
		}
		w.lc.c.Wait()
	}
	return false
}

// warmReplicaWait bounds how long a warm-up waits for the replica to
// replay the changes seen before it began, before it reads the primary.
const warmReplicaWait = 2 * time.Second

// warmSource is where a warm-up whose snapshot follows every change
// invalidated at or before changed reads: the replica once it has caught
// up with them (rows changed later lose against the snapshot), else the
// primary.
func (c *Catalog) warmSource(ctx context.Context, changed int64) Source {
	if c.reads.replica == nil {
		return c.src
	}
	deadline := time.Now().Add(warmReplicaWait)
	for c.reads.source(changed) != c.reads.replica && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(probeInterval / 2)
	}
	src := c.reads.source(changed)
	if src == c.reads.replica {
		c.reads.replicaLoads.Add(1)
	}
	return src
}

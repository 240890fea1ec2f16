package catalog

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/ristretto/v2"
	"golang.org/x/sync/singleflight"

	"kurz/shared/link"
)

// objects caches the rarer objects (campaigns, QR codes) by string key,
// with negative entries and singleflight loads. Entries carry the global
// generation they were loaded under, so clear makes every entry a miss
// without ristretto's Clear (cheap enough to follow any change notice).
type objects[T any] struct {
	c           *ristretto.Cache[string, *entry[T]]
	vers        versions
	group       singleflight.Group
	loadTimeout time.Duration
	negativeTTL time.Duration
	cost        func(T) int64
	// versionKey names the generation a found value's load is checked
	// against; nil: the hash of its cache key. Campaigns use their id, so
	// that a change of one campaign's links makes its loads lose.
	versionKey func(v T) uint64
	// storing, when set, runs just before a found value is Set under key:
	// an invalidation that reads what storing recorded and lands after the
	// Set then finds the key, and one before it makes the load lose.
	storing func(key string, v T)
	// absent, when set, reports on a miss that no object has key (the
	// catalog's existence sets): answered without a load.
	absent func(key string) bool
	gate   *loadGate    // bounds the loads of every cache of the catalog
	reads  *reads       // where loads read (reads.go)
	loads  atomic.Int64 // loads run (tests)
	// name labels the cache's series; hits, misses and negHits count
	// lookups (an entry of an older generation is a miss), negHits those
	// answered "no such key" without a query (metrics).
	name                  string
	hits, misses, negHits atomic.Uint64
}

type entry[T any] struct {
	gen   uint64
	found bool
	v     T
}

func newObjects[T any](what string, maxCost int64, cfg Config, rd *reads, cost func(T) int64) (*objects[T], error) {
	c, err := ristretto.NewCache(&ristretto.Config[string, *entry[T]]{
		NumCounters: max(maxCost/100, 1e4), MaxCost: maxCost, BufferItems: 64, IgnoreInternalCost: true,
		Metrics: true, // evictions and bytes for /metrics
	})
	if err != nil {
		return nil, fmt.Errorf("%s cache: %w", what, err)
	}
	return &objects[T]{name: what, c: c, loadTimeout: cfg.LoadTimeout, negativeTTL: cfg.NegativeTTL, cost: cost, gate: cfg.gate, reads: rd}, nil
}

func (o *objects[T]) close() { o.c.Close() }
func (o *objects[T]) wait()  { o.c.Wait() }

func keyHash(key string) uint64 { return xxhash.Sum64String(key) }

// get returns the cached value of key, loading it on a miss. found is false
// for an unknown key; err wraps link.ErrUnavailable when the store failed.
// The load is bounded by the catalog's LoadTimeout, not by the request.
func (o *objects[T]) get(key string, load func(ctx context.Context, src Source) (T, error)) (v T, found bool, err error) {
	if e, ok := o.c.Get(key); ok && e.gen == o.vers.global.Load() {
		o.hits.Add(1)
		if !e.found {
			o.negHits.Add(1)
		}
		return e.v, e.found, nil
	}
	o.misses.Add(1)
	if o.absent != nil && o.absent(key) {
		o.negHits.Add(1)
		return v, false, nil
	}
	r, err, _ := o.group.Do(key, func() (any, error) { return o.load(key, load) })
	if err != nil {
		return v, false, err
	}
	e := r.(*entry[T])
	return e.v, e.found, nil
}

func (o *objects[T]) load(key string, load func(ctx context.Context, src Source) (T, error)) (*entry[T], error) {
	// The version key of a found value is known only once it is read
	// (a campaign's id): check against a snapshot of all generations.
	snap := o.vers.snapshot()
	o.loads.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), o.loadTimeout)
	defer cancel()
	if err := o.gate.enter(ctx); err != nil {
		return nil, err
	}
	// The key's version is known only after the read: the replica serves
	// it only if it has caught up with every invalidation of this cache.
	v, err := read(o.reads, o.vers.anyChangeAt(), func(src Source) (T, error) { return load(ctx, src) })
	o.gate.leave()
	e := &entry[T]{gen: snap.global}
	var (
		vkey = keyHash(key)
		cost = int64(64)
		ttl  = o.negativeTTL
	)
	switch {
	case errors.Is(err, link.ErrNotFound):
	case err != nil:
		return nil, fmt.Errorf("%w: %w", link.ErrUnavailable, err)
	default:
		e.found, e.v = true, v
		cost, ttl = 256+o.cost(v), 0
		if o.versionKey != nil {
			vkey = o.versionKey(v)
		}
	}
	o.vers.store(snap.at(vkey), func() bool {
		if e.found && o.storing != nil {
			o.storing(key, v)
		}
		return o.c.SetWithTTL(key, e, cost, ttl)
	}, func() { o.c.Del(key) })
	return e, nil
}

// del drops key; a load of it that began before loses.
func (o *objects[T]) del(key string) {
	o.vers.invalidate(keyHash(key))
	o.c.Del(key)
	o.group.Forget(key)
}

// clear makes every entry a miss and every running load lose.
func (o *objects[T]) clear() { o.vers.clear() }

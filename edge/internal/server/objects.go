package server

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/ristretto/v2"
	"golang.org/x/sync/singleflight"

	"kurz/shared/link"
)

// objectCache caches the rarer objects (campaigns, QR codes) by string key,
// with negative entries, singleflight loads and two ways to invalidate:
// Del one key, or Bump a generation that makes every older entry a miss
// (cheaper than ristretto's Clear, so it can follow every link change a
// campaign might depend on).
type objectCache[T any] struct {
	c   *ristretto.Cache[string, *cached[T]]
	gen atomic.Uint64
	// dels counts Del calls. A load that saw it change does not cache
	// what it read: ristretto applies a Set after an earlier Del, so a
	// row read before a change would otherwise stay cached (no TTL).
	dels  atomic.Uint64
	group singleflight.Group
}

type cached[T any] struct {
	gen   uint64
	found bool
	v     T
}

const (
	objectLoadTimeout = 2 * time.Second
	objectNegativeTTL = 30 * time.Second
)

func newObjectCache[T any](maxCost int64) (*objectCache[T], error) {
	c, err := ristretto.NewCache(&ristretto.Config[string, *cached[T]]{
		NumCounters: max(maxCost/100, 1e4), MaxCost: maxCost, BufferItems: 64, IgnoreInternalCost: true,
	})
	if err != nil {
		return nil, fmt.Errorf("object cache: %w", err)
	}
	return &objectCache[T]{c: c}, nil
}

func (o *objectCache[T]) close() { o.c.Close() }

// Del drops key. dels moves first: a load that Set after this Del then
// sees it moved and deletes again.
func (o *objectCache[T]) Del(key string) {
	o.dels.Add(1)
	o.c.Del(key)
	o.group.Forget(key)
}

// Bump invalidates every entry.
func (o *objectCache[T]) Bump() { o.gen.Add(1) }

// get returns the cached value of key, loading it on a miss. found is false
// for an unknown key; err wraps link.ErrUnavailable when the store failed.
func (o *objectCache[T]) get(key string, cost func(T) int64, load func(ctx context.Context) (T, error)) (v T, found bool, err error) {
	g := o.gen.Load()
	if e, ok := o.c.Get(key); ok && e.gen == g {
		return e.v, e.found, nil
	}
	r, err, _ := o.group.Do(key, func() (any, error) {
		d0 := o.dels.Load()
		ctx, cancel := context.WithTimeout(context.Background(), objectLoadTimeout)
		defer cancel()
		v, err := load(ctx)
		switch {
		case errors.Is(err, link.ErrNotFound):
			e := &cached[T]{gen: g}
			o.set(key, e, 64, objectNegativeTTL, g, d0)
			return e, nil
		case err != nil:
			return nil, fmt.Errorf("%w: %w", link.ErrUnavailable, err)
		}
		e := &cached[T]{gen: g, found: true, v: v}
		o.set(key, e, 256+cost(v), 0, g, d0)
		return e, nil
	})
	if err != nil {
		return v, false, err
	}
	e := r.(*cached[T])
	return e.v, e.found, nil
}

// set caches e unless a Bump or a Del happened since the load began (g,
// d0); a Del that lands between that check and the Set is undone by a
// second Del, queued behind the Set.
func (o *objectCache[T]) set(key string, e *cached[T], cost int64, ttl time.Duration, g, d0 uint64) {
	if o.gen.Load() != g || o.dels.Load() != d0 {
		return
	}
	o.c.SetWithTTL(key, e, cost, ttl)
	if o.dels.Load() != d0 {
		o.c.Del(key)
	}
}

// imageCache holds rendered QR images by their full rendering key.
type imageCache struct {
	c *ristretto.Cache[string, *qrImage]
}

type qrImage struct {
	body  []byte
	etag  string
	ctype string
}

func newImageCache(maxCost int64) (*imageCache, error) {
	c, err := ristretto.NewCache(&ristretto.Config[string, *qrImage]{
		NumCounters: 1e5, MaxCost: maxCost, BufferItems: 64, IgnoreInternalCost: true,
	})
	if err != nil {
		return nil, fmt.Errorf("image cache: %w", err)
	}
	return &imageCache{c: c}, nil
}

func (i *imageCache) close() { i.c.Close() }

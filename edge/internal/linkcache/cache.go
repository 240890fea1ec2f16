package linkcache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/ristretto/v2"
	"golang.org/x/sync/singleflight"

	"kurz/shared/link"
	"kurz/shared/pgstore"
)

// Config tunes a Cache.
type Config struct {
	MaxBytes    int64         // byte budget of the link cache (KURZ_CACHE_MAX_BYTES)
	LoadTimeout time.Duration // bound on one miss's database round trip; default 2 s
	NegativeTTL time.Duration // how long an unknown alias stays known-unknown; default 30 s
}

// ErrUnavailable wraps a failed load: the database did not answer in time.
var ErrUnavailable = link.ErrUnavailable

// Cache maps (host, alias) to compiled links.
//
// Keys are a 64-bit hash of "host/alias" built without allocating; the
// entry carries its host and alias, and Get compares them, so a hash
// collision is a miss, never a wrong redirect.
//
// Invariant: a load that overlaps an invalidation of its key never stores
// its result. Each key hashes to one of stripes generation counters that
// invalidations bump; a load stores only when its stripe's and the global
// generation are unchanged since it started.
type Cache struct {
	store *pgstore.Store
	log   *slog.Logger
	cfg   Config

	links *ristretto.Cache[uint64, *Link]
	group singleflight.Group

	global atomic.Uint64
	gens   [stripes]atomic.Uint64

	warming atomic.Bool // a warm-up is marked or running (see Warm)
	// warmRowHook, when set (tests only), sees each warm-up row as it
	// arrives: it lets a test land an invalidation mid-stream.
	warmRowHook func(*pgstore.EdgeLink)
	// loadSetHook, when set (tests), runs in a miss's load between its
	// generation check and its Set.
	loadSetHook func()
}

const stripes = 256

// New creates a cache loading misses from store.
func New(store *pgstore.Store, log *slog.Logger, cfg Config) (*Cache, error) {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 256 << 20
	}
	if cfg.LoadTimeout <= 0 {
		cfg.LoadTimeout = 2 * time.Second
	}
	if cfg.NegativeTTL <= 0 {
		cfg.NegativeTTL = 30 * time.Second
	}
	c := &Cache{store: store, log: log, cfg: cfg}
	// A plain link costs ~330 bytes, so a full cache holds MaxBytes/330
	// links; MaxBytes/256 counters is ~1.3 per link of a full cache and 4
	// per link of 1M links in the bench's 1 GiB. ristretto suggests 10 per
	// item, but its frequency sketch and doorkeeper are sized to the next
	// power of two of the counter count: /100 cost 50 MB of fixed heap at
	// 1 GiB (a heap profile's top entry), /256 costs 16 MB, and admission
	// only matters once the cache is full.
	counters := max(cfg.MaxBytes/256, 1e4)
	links, err := ristretto.NewCache(&ristretto.Config[uint64, *Link]{
		NumCounters:        counters,
		MaxCost:            cfg.MaxBytes,
		BufferItems:        64,
		IgnoreInternalCost: true,
		// The key is already a hash: passing a uint64 by value through this
		// func keeps Get allocation-free (the default hashes via any()).
		KeyToHash: func(k uint64) (uint64, uint64) { return k, 0 },
	})
	if err != nil {
		return nil, fmt.Errorf("link cache: %w", err)
	}
	c.links = links
	return c, nil
}

// Close stops the cache's goroutines.
func (c *Cache) Close() { c.links.Close() }

// Key hashes (host, alias) without allocating.
func Key(host string, alias []byte) uint64 {
	var buf [512]byte
	if len(host)+1+len(alias) > len(buf) {
		// Longer than any stored host + alias: hash something that cannot
		// collide with a real key's verification anyway.
		return xxhash.Sum64(alias)
	}
	n := copy(buf[:], host)
	buf[n] = '/'
	n++
	n += copy(buf[n:], alias)
	return xxhash.Sum64(buf[:n])
}

// Get returns the cached entry of (host, alias): a link, or a negative entry
// (l.Missing()) for a known-unknown alias. ok is false on a miss.
func (c *Cache) Get(host string, alias []byte) (l *Link, ok bool) {
	l, ok = c.links.Get(Key(host, alias))
	if !ok || l.Host() != host || l.Alias() != string(alias) {
		return nil, false
	}
	return l, true
}

// Load fetches (host, alias) from the database and caches it. Concurrent
// loads of one key share a single query; the query is bounded by
// LoadTimeout whatever ctx says. An unknown alias returns a negative entry;
// an unreachable database returns an error wrapping ErrUnavailable.
func (c *Cache) Load(ctx context.Context, host, alias string) (*Link, error) {
	v, err, _ := c.group.Do(host+"/"+alias, func() (any, error) {
		return c.load(ctx, host, alias)
	})
	if err != nil {
		return nil, err
	}
	return v.(*Link), nil
}

func (c *Cache) load(ctx context.Context, host, alias string) (*Link, error) {
	key := Key(host, []byte(alias))
	g0, s0 := c.global.Load(), c.gens[key%stripes].Load()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.LoadTimeout)
	defer cancel()
	row, err := c.store.EdgeLinkByAlias(ctx, host, alias)
	var (
		l    *Link
		cost int64
	)
	switch {
	case errors.Is(err, link.ErrNotFound):
		l, cost = missing(host, alias)
	case err != nil:
		if !errors.Is(err, link.ErrUnavailable) {
			err = fmt.Errorf("%w: %w", link.ErrUnavailable, err)
		}
		return nil, err
	default:
		if l, cost, err = Compile(row); err != nil {
			// Unservable row: treat it as unknown rather than failing
			// every visit; log once per load.
			c.log.Warn("link not servable", "host", host, "alias", alias, "err", err)
			l, cost = missing(host, alias)
		}
	}
	if c.global.Load() != g0 || c.gens[key%stripes].Load() != s0 {
		return l, nil // invalidated meanwhile: serve, but do not cache
	}
	if c.loadSetHook != nil {
		c.loadSetHook()
	}
	if l.Missing() {
		c.links.SetWithTTL(key, l, cost, c.cfg.NegativeTTL)
	} else {
		c.links.Set(key, l, cost)
	}
	// An invalidation or Clear that bumped a generation after the check
	// above may have run its Del before this Set, which ristretto applies
	// later: the stale row would stay cached. Undo the Set; this Del is
	// queued behind it and wins (as in Warm).
	if c.global.Load() != g0 || c.gens[key%stripes].Load() != s0 {
		c.links.Del(key)
	}
	return l, nil
}

// Invalidate drops (host, alias), including a negative entry.
func (c *Cache) Invalidate(host, alias string) {
	key := Key(host, []byte(alias))
	c.gens[key%stripes].Add(1)
	c.links.Del(key)
	c.group.Forget(host + "/" + alias)
}

// InvalidateID drops the entry of link id (a link_pixels change names
// only the link's id). The id is resolved to (host, alias) in the
// database rather than through an id index in memory: such an index cost
// ~150 bytes per cached link, and pixel edits are rare. When the lookup
// fails the whole cache is cleared, so a stale entry can never survive.
func (c *Cache) InvalidateID(ctx context.Context, id int64) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.LoadTimeout)
	defer cancel()
	host, alias, err := c.store.EdgeLinkKey(ctx, id)
	switch {
	case errors.Is(err, link.ErrNotFound):
		// Deleted: the links notification already dropped it.
	case err != nil:
		c.log.Warn("resolve changed link; clearing the link cache", "id", id, "err", err)
		c.Clear()
	default:
		c.Invalidate(host, alias)
	}
}

// Clear drops every entry: after a listener reconnect (notifications may
// have been missed) and on rare changes that many links depend on.
func (c *Cache) Clear() {
	c.global.Add(1)
	c.links.Clear()
}

// Wait blocks until buffered writes are applied (tests).
func (c *Cache) Wait() { c.links.Wait() }

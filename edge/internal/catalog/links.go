package catalog

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
)

// linkCache maps (host, alias) to compiled links.
//
// Keys are a 64-bit hash of "host/alias" built without allocating; the
// entry carries its host and alias, and get compares them, so a hash
// collision is a miss, never a wrong redirect. Invalidations bump the
// key's generation (versions), Clear the global one.
//
// A miss first asks the existence set (existence.go): an alias it knows
// to be unknown is answered without a query. What remains shares one
// query per key (singleflight) and takes a turn of the load gate
// (gate.go), which refuses loads past its queue at once.
type linkCache struct {
	reads       *reads
	log         *slog.Logger
	loadTimeout time.Duration
	negativeTTL time.Duration

	c     *ristretto.Cache[uint64, *Link]
	group singleflight.Group
	vers  versions
	keys  *existence
	gate  *loadGate
	// negHits counts lookups answered "no such link" without a query: a
	// cached negative entry or the existence set (metrics).
	negHits atomic.Uint64
}

func newLinkCache(rd *reads, cfg Config, keys *existence) (*linkCache, error) {
	// A plain link costs ~330 bytes, so a full cache holds MaxBytes/330
	// links; MaxBytes/256 counters is ~1.3 per link of a full cache and 4
	// per link of 1M links in the bench's 1 GiB. ristretto suggests 10 per
	// item, but its frequency sketch and doorkeeper are sized to the next
	// power of two of the counter count: /100 cost 50 MB of fixed heap at
	// 1 GiB (a heap profile's top entry), /256 costs 16 MB, and admission
	// only matters once the cache is full.
	counters := max(cfg.MaxBytes/256, 1e4)
	c, err := ristretto.NewCache(&ristretto.Config[uint64, *Link]{
		NumCounters:        counters,
		MaxCost:            cfg.MaxBytes,
		BufferItems:        64,
		IgnoreInternalCost: true,
		// The key is already a hash: passing a uint64 by value through this
		// func keeps Get allocation-free (the default hashes via any()).
		KeyToHash: func(k uint64) (uint64, uint64) { return k, 0 },
		// Hits, misses, evictions and bytes for /metrics: striped atomic
		// adds, no allocation (alloc_test.go in the server).
		Metrics: true,
	})
	if err != nil {
		return nil, fmt.Errorf("link cache: %w", err)
	}
	return &linkCache{reads: rd, log: cfg.Log, loadTimeout: cfg.LoadTimeout, negativeTTL: cfg.NegativeTTL, c: c,
		keys: keys, gate: cfg.gate}, nil
}

func (lc *linkCache) close() { lc.c.Close() }
func (lc *linkCache) wait()  { lc.c.Wait() }

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

func (lc *linkCache) get(host string, alias []byte) (l *Link, ok bool) {
	l, ok = lc.c.Get(Key(host, alias))
	if !ok || l.Host() != host || l.Alias() != string(alias) {
		return nil, false
	}
	if l.Missing() {
		lc.negHits.Add(1)
	}
	return l, true
}

// absentLink is what a load answers for an alias the existence set knows
// to be unknown: a negative entry of no key, never cached. Shared; never
// modified.
var absentLink = &Link{Extra: noExtra, flags: flagMissing}

func (lc *linkCache) load(ctx context.Context, host, alias string) (*Link, error) {
	if lc.keys.linkAbsent(host, alias) {
		lc.negHits.Add(1)
		return absentLink, nil
	}
	v, err, _ := lc.group.Do(host+"/"+alias, func() (any, error) {
		return lc.loadOne(ctx, host, alias)
	})
	if err != nil {
		return nil, err
	}
	return v.(*Link), nil
}

func (lc *linkCache) loadOne(ctx context.Context, host, alias string) (*Link, error) {
	key := Key(host, []byte(alias))
	at := lc.vers.at(key)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lc.loadTimeout)
	defer cancel()
	if err := lc.gate.enter(ctx); err != nil {
		return nil, err
	}
	row, err := read(lc.reads, lc.vers.changedAt(key), func(src Source) (*link.EdgeLink, error) {
		return src.EdgeLinkByAlias(ctx, host, alias)
	})
	lc.gate.leave()
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
			lc.log.Warn("link not servable", "host", host, "alias", alias, "err", err)
			l, cost = missing(host, alias)
		}
	}
	// Invalidated meanwhile: served, but not cached.
	lc.vers.store(at, func() bool {
		if l.Missing() {
			return lc.c.SetWithTTL(key, l, cost, lc.negativeTTL)
		}
		return lc.c.Set(key, l, cost)
	}, func() { lc.c.Del(key) })
	return l, nil
}

// invalidate drops (host, alias), including a negative entry. The
// generation moves first: a load that Set after this Del then sees it
// moved and deletes again.
func (lc *linkCache) invalidate(host, alias string) {
	key := Key(host, []byte(alias))
	lc.vers.invalidate(key)
	lc.c.Del(key)
	lc.group.Forget(host + "/" + alias)
}

// clear drops every entry.
func (lc *linkCache) clear() {
	lc.vers.clear()
	lc.c.Clear()
}

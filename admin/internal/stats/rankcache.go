package stats

import (
	"sync"
	"time"

	"kurz/shared/click"
)

// rankCache keeps owners' click rankings while their human click total is
// unchanged. Reading the ranking sums every target of the owner (a GROUP
// BY over 100k rows for a 100k-link owner: 20-45 ms on 18.16, most of a
// ranked dashboard page); the owner's total is one column's sum over the
// same rows (4-5 ms). Counts only grow, so an unchanged total means no
// target of the owner gained a human click and the ranking is the same.
// The total is read before the ranking, so a click landing between the
// two reads makes the next total differ and the ranking is read anew.
//
// maxAge bounds how long an entry is trusted: on a replicated ClickHouse
// cluster the two reads may reach different replicas, and a ranking read
// from a lagging replica must not outlive a quiet owner's next minute.
type rankCache struct {
	mu      sync.Mutex
	entries map[rankKey]*rankEntry
	ids     int // ids held by all entries, at most maxIDs
	maxAge  time.Duration
	maxIDs  int
	hits    int // for tests and the docs' measurements
	misses  int
}

type rankKey struct {
	kind  click.Kind
	owner int64
}

type rankEntry struct {
	total    uint64 // the owner's human clicks when the ranking was read
	limit    int    // the limit it was read with (<= 0: all)
	complete bool   // it holds every clicked target: any limit is a prefix
	ranked   Ranked
	read     time.Time
	used     time.Time
}

// Bounds: an entry of a 100k-link owner read whole is 1.6 MB, so the cache
// holds ids, not owners; a ranking longer than maxEntryIDs is not kept.
const (
	rankMaxAge      = time.Minute
	rankMaxIDs      = 1 << 20 // 16 MB of ids and counts
	rankMaxEntryIDs = 1 << 18
)

func newRankCache() *rankCache {
	return &rankCache{entries: map[rankKey]*rankEntry{}, maxAge: rankMaxAge, maxIDs: rankMaxIDs}
}

// get returns the first limit entries (all when limit <= 0) of the cached
// ranking of (kind, owner) if it was read at total and still covers limit.
// The slices are capped: appending to them cannot write into the cache.
func (c *rankCache) get(kind click.Kind, owner int64, total uint64, limit int, now time.Time) (Ranked, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[rankKey{kind, owner}]
	covers := e != nil && (e.complete || limit > 0 && e.limit > 0 && limit <= e.limit)
	if !covers || e.total != total || now.Sub(e.read) >= c.maxAge {
		c.misses++
		return Ranked{}, false
	}
	c.hits++
	e.used = now
	n := len(e.ranked.IDs)
	if limit > 0 {
		n = min(n, limit)
	}
	return Ranked{IDs: e.ranked.IDs[:n:n], Clicks: e.ranked.Clicks[:n:n]}, true
}

// put keeps r, read with limit when the owner's total was total.
func (c *rankCache) put(kind click.Kind, owner int64, total uint64, limit int, r Ranked, now time.Time) {
	n := len(r.IDs)
	if n > rankMaxEntryIDs {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := rankKey{kind, owner}
	if old := c.entries[k]; old != nil {
		c.ids -= len(old.ranked.IDs)
		delete(c.entries, k)
	}
	for c.ids+n > c.maxIDs && len(c.entries) > 0 {
		c.evictLeastUsed()
	}
	c.entries[k] = &rankEntry{total: total, limit: limit, complete: limit <= 0 || n < limit, ranked: r, read: now, used: now}
	c.ids += n
}

// evictLeastUsed drops the entry used longest ago. A scan: evictions happen
// on misses only, and the cache holds at most a few thousand entries.
func (c *rankCache) evictLeastUsed() {
	var oldest rankKey
	var at time.Time
	first := true
	for k, e := range c.entries {
		if first || e.used.Before(at) {
			oldest, at, first = k, e.used, false
		}
	}
	c.ids -= len(c.entries[oldest].ranked.IDs)
	delete(c.entries, oldest)
}

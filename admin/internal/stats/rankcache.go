package stats

import (
	"slices"
	"sync"
	"time"

	"kurz/shared/click"
)

// rankCache keeps owners' click rankings while their human click total is
// unchanged: on a ClickHouse cluster, and for owners with more rows than
// partRanks keeps (one server keeps rankings part by part, partrank.go). Reading the ranking sums every target of the owner (a GROUP
// BY over 100k rows for a 100k-link owner: 20-45 ms on 18.16, most of a
// ranked dashboard page); the owner's total is one column's sum over the
// same rows (4-5 ms). Counts only grow, so an unchanged total means no
// target of the owner gained a human click and the ranking is the same.
// An entry is kept at the total read with its ranking, in the same query
// (chstore.ReadRanking), so it holds exactly the clicks that total counts.
//
// An owner whose clicks keep coming misses every time, and for them the
// total read first is only a delay before the ranking's read: an entry read
// because the total had moved since the entry before it is marked moved,
// and while it is the owner's, Service.Ranking reads the ranking at once
// (it carries its own total, ReadRanking's WITH TOTALS). The first such
// read that finds the total unchanged clears the mark, and the owner's next
// page is a cache hit again.
//
// maxAge bounds how long an entry is trusted: on a replicated ClickHouse
// cluster the two reads may reach different replicas, and a ranking read
// from a lagging replica must not outlive a quiet owner's next minute.
type rankCache struct {
	mu      sync.Mutex
	entries map[rankKey]*rankEntry
	ids     int // ids held by all entries plus entryCost each, at most maxIDs
	maxAge  time.Duration
	maxIDs  int
	hits    int // for tests
	misses  int
	direct  int // rankings read without the total first (moving owners)
}

type rankKey struct {
	kind  click.Kind
	owner int64
}

type rankEntry struct {
	total    uint64 // the owner's human clicks when the ranking was read
	limit    int    // the limit it was read with (<= 0: all)
	complete bool   // it holds every clicked target: any limit is a prefix
	moved    bool   // the entry it replaced was read at another total
	ranked   Ranked
	read     time.Time
	used     time.Time
}

// Bounds: an entry of a 100k-link owner read whole is 1.6 MB, so the cache
// counts ids, not owners, and charges each entry entryCost ids more for
// its map slot and headers (~150 bytes), so that 16 MB also bounds many
// small entries (at most 65,536 of them). A ranking longer than
// rankMaxEntryIDs is not kept, nor an empty one (nothing to save).
const (
	rankMaxAge      = time.Minute
	rankMaxIDs      = 1 << 20 // 16 MB of ids and counts
	rankMaxEntryIDs = 1 << 18
	entryCost       = 16
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
	k := rankKey{kind, owner}
	e := c.entries[k]
	if e != nil && now.Sub(e.read) >= c.maxAge {
		c.drop(k) // too old to compare totals with
		e = nil
	}
	// An entry of another total stays until the ranking read next replaces
	// it: put compares the two totals.
	if e == nil || e.total != total || !e.complete && (limit <= 0 || limit > e.limit) {
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
	if n == 0 || n > rankMaxEntryIDs {
		return
	}
	// A copy: the cache holds what it counts, not ReadRanking's spare
	// capacity, and shares nothing with the caller.
	r = Ranked{IDs: slices.Clone(r.IDs), Clicks: slices.Clone(r.Clicks)}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := rankKey{kind, owner}
	moved := false
	if old := c.entries[k]; old != nil {
		moved = old.total != total && now.Sub(old.read) < c.maxAge
	}
	c.drop(k)
	if c.ids+n+entryCost > c.maxIDs {
		c.evict(n+entryCost, now)
	}
	c.entries[k] = &rankEntry{total: total, limit: limit, complete: limit <= 0 || n < limit, moved: moved,
		ranked: r, read: now, used: now}
	c.ids += n + entryCost
}

// last returns the ids at from..to of (kind, owner)'s kept ranking,
// whatever total it was read at, or nil when none is kept (or it is
// expired, or shorter than from).
func (c *rankCache) last(kind click.Kind, owner int64, from, to int, now time.Time) []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[rankKey{kind, owner}]
	if e == nil || now.Sub(e.read) >= c.maxAge || from < 0 || to <= from || from >= len(e.ranked.IDs) {
		return nil
	}
	return slices.Clone(e.ranked.IDs[from:min(to, len(e.ranked.IDs))])
}

// moving reports whether (kind, owner)'s entry was read because the
// owner's total had moved: the next ranking is read without the total
// first.
func (c *rankCache) moving(kind click.Kind, owner int64, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[rankKey{kind, owner}]
	if e == nil || !e.moved || now.Sub(e.read) >= c.maxAge {
		return false
	}
	c.direct++
	return true
}

func (c *rankCache) drop(k rankKey) {
	if e := c.entries[k]; e != nil {
		c.ids -= len(e.ranked.IDs) + entryCost
		delete(c.entries, k)
	}
}

// evict makes room for need: first every expired entry, then the least
// recently used ones. One pass collects the candidates, so a put that must
// free many small entries scans the map once, not once per entry.
func (c *rankCache) evict(need int, now time.Time) {
	var live []rankKey
	for k, e := range c.entries {
		if now.Sub(e.read) >= c.maxAge {
			c.drop(k)
		} else {
			live = append(live, k)
		}
	}
	if c.ids+need <= c.maxIDs {
		return
	}
	slices.SortFunc(live, func(a, b rankKey) int { return c.entries[a].used.Compare(c.entries[b].used) })
	for _, k := range live {
		if c.ids+need <= c.maxIDs {
			return
		}
		c.drop(k)
	}
}

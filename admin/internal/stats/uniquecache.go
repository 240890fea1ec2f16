package stats

import (
	"sync"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// uniqueCache keeps targets' unique clicks under the key of the sketch
// rows they were merged from (chstore.Keyed): while a later read of the
// keys finds the same one, the rows are the same and so is the count, and
// a list page merges only the sketches of targets that gained a visitor
// or whose parts were merged since. Each admin process keeps its own.
type uniqueCache struct {
	mu      sync.Mutex
	entries map[uniqueKey]uniqueEntry
	max     int
	now     func() time.Time
	hits    int // for tests
	misses  int
}

type uniqueKey struct {
	kind click.Kind
	id   int64
}

type uniqueEntry struct {
	chstore.Keyed
	read time.Time
}

// uniqueMaxEntries bounds the cache: a key names a few parts (~40-200
// bytes), so 65,536 entries stay within ~16 MB; a list page holds at most
// chstore.MaxTotalsIDs targets. An entry is trusted for uniqueMaxAge at
// most (a part name used again after a crash, partrank.go).
const (
	uniqueMaxEntries = 1 << 16
	uniqueMaxAge     = 10 * time.Minute
)

func newUniqueCache() *uniqueCache {
	return &uniqueCache{entries: map[uniqueKey]uniqueEntry{}, max: uniqueMaxEntries, now: time.Now}
}

// get returns the unique clicks kept for (kind, id) if they were read
// under key.
func (c *uniqueCache) get(kind click.Kind, id int64, key string) (uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[uniqueKey{kind, id}]
	if !ok || e.Key != key || c.now().Sub(e.read) >= uniqueMaxAge {
		c.misses++
		return 0, false
	}
	c.hits++
	return e.UniqueClicks, true
}

// put keeps u, read for (kind, id), making room as shed does.
func (c *uniqueCache) put(kind click.Kind, id int64, u chstore.Keyed) {
	if u.Key == "" {
		return // no row: nothing to merge next time either
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := uniqueKey{kind, id}
	if _, ok := c.entries[k]; !ok {
		shed(c.entries, c.max)
	}
	c.entries[k] = uniqueEntry{Keyed: u, read: c.now()}
}

package click

import "sync"

// boundedCache maps byte-string keys to values and holds at most about
// 2×max entries: when the current generation is full it becomes the old one
// and a new, empty generation starts. Entries hit in the old generation are
// promoted, so hot keys (the few User-Agents that make most traffic)
// survive while one-off keys age out: an LRU approximation without per-hit
// bookkeeping. Lookups with a []byte key do not allocate.
type boundedCache[V any] struct {
	mu  sync.Mutex
	max int
	cur map[string]cacheEntry[V]
	old map[string]cacheEntry[V]
}

// cacheEntry keeps its own key so a promotion does not allocate a new one.
type cacheEntry[V any] struct {
	key string
	val V
}

func newBoundedCache[V any](max int) *boundedCache[V] {
	return &boundedCache[V]{max: max, cur: make(map[string]cacheEntry[V], max)}
}

func (c *boundedCache[V]) get(key []byte) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.cur[string(key)]; ok {
		return e.val, true
	}
	if e, ok := c.old[string(key)]; ok {
		c.putLocked(e)
		return e.val, true
	}
	var zero V
	return zero, false
}

func (c *boundedCache[V]) put(key string, val V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(cacheEntry[V]{key: key, val: val})
}

func (c *boundedCache[V]) putLocked(e cacheEntry[V]) {
	if len(c.cur) >= c.max {
		c.old = c.cur
		c.cur = make(map[string]cacheEntry[V], c.max)
	}
	c.cur[e.key] = e
}

package catalog

import "github.com/dgraph-io/ristretto/v2"

// CacheStats describes one cache of the catalog for /metrics.
type CacheStats struct {
	Name         string // link, campaign, qr scan, qr
	Hits, Misses uint64
	// NegativeHits are lookups answered "no such key" without a database
	// query: a cached negative entry or the existence sets.
	NegativeHits uint64
	// Evictions counts entries that left the cache: evicted for room or
	// expired negative entries, and invalidated ones (ristretto counts a
	// delete as an eviction).
	Evictions uint64
	Bytes     int64 // cost held (the caches' costs estimate bytes)
	MaxBytes  int64
}

// CacheStats reports every cache of the catalog: links, campaigns, QR
// scans, and the QR caches added with NewQRCodes. A resync's Clear of the
// link cache resets its ristretto counters: Prometheus reads the drop as a
// counter reset.
func (c *Catalog) CacheStats() []CacheStats {
	lm := c.links.c.Metrics
	out := []CacheStats{{
		Name: "link", Hits: lm.Hits(), Misses: lm.Misses(), NegativeHits: c.links.negHits.Load(),
		Evictions: lm.KeysEvicted(), Bytes: held(lm), MaxBytes: c.links.c.MaxCost(),
	}, objectStats(c.campaigns.o)}
	c.qrs.each(func(q qrCache) { out = append(out, q.stats()) })
	return out
}

func objectStats[T any](o *objects[T]) CacheStats {
	m := o.c.Metrics
	return CacheStats{Name: o.name, Hits: o.hits.Load(), Misses: o.misses.Load(), NegativeHits: o.negHits.Load(),
		Evictions: m.KeysEvicted(), Bytes: held(m), MaxBytes: o.c.MaxCost()}
}

// held is the cost a cache holds: added less evicted (deletes included).
func held(m *ristretto.Metrics) int64 {
	return max(int64(m.CostAdded())-int64(m.CostEvicted()), 0)
}

func (q *QRCodes[T]) stats() CacheStats { return objectStats(q.o) }

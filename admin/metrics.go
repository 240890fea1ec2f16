package main

import (
	"io"

	"github.com/VictoriaMetrics/metrics"

	"kurz/admin/internal/price"
	"kurz/shared/obs"
	"kurz/shared/pgstore"
)

// The admin's /metrics series read at scrape time (the request and
// rate-limit series are the API server's own, admin/internal/api/metrics.go).
// Names and meanings: docs/operations.md.

// registerStore exposes the PostgreSQL pool.
func registerStore(set *metrics.Set, st *pgstore.Store) {
	set.RegisterMetricsWriter(func(w io.Writer) { obs.WritePool(w, "kurz_admin_pg_pool", st.PoolStats()) })
}

// registerPrices exposes the price cache and, when it runs, the poller.
func registerPrices(set *metrics.Set, svc *price.Service, poller *price.Poller) {
	set.RegisterMetricsWriter(func(w io.Writer) {
		c := svc.CacheStats()
		const p = "kurz_admin_price_"
		obs.Counter(w, p+"cache_hits_total", c.Hits)
		obs.Counter(w, p+"cache_misses_total", c.Misses)
		obs.Counter(w, p+"cache_evictions_total", c.Evictions)
		obs.Gauge(w, p+"cache_symbols", float64(c.Symbols))
		if poller == nil {
			return
		}
		s := poller.Stats()
		obs.Counter(w, p+"poll_rounds_total", s.Rounds)
		obs.Counter(w, p+"poll_fetches_total", s.Fetches)
		obs.Counter(w, p+"poll_errors_total", s.FetchErrors)
		obs.Counter(w, p+"poll_stored_total", s.Stored)
		obs.Counter(w, p+"poll_store_errors_total", s.StoreErrors)
	})
}

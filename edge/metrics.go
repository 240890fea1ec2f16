package main

import (
	"io"
	"strings"

	"github.com/VictoriaMetrics/metrics"

	"kurz/edge/internal/catalog"
	"kurz/edge/internal/clicks"
	"kurz/edge/internal/listen"
	"kurz/shared/obs"
	"kurz/shared/pgstore"
)

// The edge's /metrics series that are read at scrape time from what the
// components already keep (the request series are the server's own,
// edge/internal/server/metrics.go). Names and meanings: docs/operations.md.

// registerClicks exposes the click pipeline's counters and gauges.
func registerClicks(set *metrics.Set, pipe *clicks.Pipeline) {
	set.RegisterMetricsWriter(func(w io.Writer) {
		st := pipe.Stats()
		const p = "kurz_edge_clicks_"
		obs.Gauge(w, p+"queue_depth", float64(st.Queued))
		obs.Gauge(w, p+"overflow_depth", float64(st.Overflowing))
		obs.Counter(w, p+"overflowed_total", st.Overflowed)
		obs.Counter(w, p+"inserted_total", st.Inserted)
		obs.Counter(w, p+"insert_batches_total", st.Batches)
		obs.Counter(w, p+"insert_failures_total", st.InsertFailures)
		obs.Seconds(w, p+"insert_lag_seconds", st.LastInsertLag)
		obs.Counter(w, p+"spooled_total", st.Spooled)
		obs.Counter(w, p+"replayed_total", st.Replayed)
		obs.Counter(w, p+"replay_failures_total", st.ReplayFailures)
		obs.Counter(w, p+"replay_duplicates_skipped_total", st.DuplicatesSkipped)
		obs.Counter(w, p+"dropped_total", st.Dropped)
		obs.Counter(w, p+"spool_full_dropped_total", st.SpoolFull)
		obs.Counter(w, p+"rejected_total", st.Rejected)
		obs.Counter(w, p+"spool_corrupt_regions_total", st.Corrupt)
		obs.Gauge(w, p+"spool_bytes", float64(st.SpoolBytes))
		obs.Gauge(w, p+"spool_segments", float64(st.SpoolSegments))
		obs.Gauge(w, p+"spool_records", float64(st.SpoolRows))
		obs.Gauge(w, p+"spool_quarantined_segments", float64(st.Quarantined))
		obs.Counter(w, p+"spool_quarantine_pruned_total", st.QuarantinePruned)
		obs.Bool(w, "kurz_edge_clickhouse_up", !st.ClickHouseDown)
		pipe.InsertLatency().WritePrometheus(w, p+"insert_duration_seconds", "")
	})
}

// registerCatalog exposes the caches and the existence sets.
func registerCatalog(set *metrics.Set, cat *catalog.Catalog) {
	set.RegisterMetricsWriter(func(w io.Writer) {
		const p = "kurz_edge_cache_"
		for _, c := range cat.CacheStats() {
			l := `{cache="` + strings.ReplaceAll(c.Name, " ", "_") + `"}`
			obs.Counter(w, p+"hits_total"+l, c.Hits)
			obs.Counter(w, p+"misses_total"+l, c.Misses)
			obs.Counter(w, p+"negative_hits_total"+l, c.NegativeHits)
			obs.Counter(w, p+"evictions_total"+l, c.Evictions)
			obs.Gauge(w, p+"bytes"+l, float64(c.Bytes))
			obs.Gauge(w, p+"max_bytes"+l, float64(c.MaxBytes))
		}
		obs.Counter(w, p+"loads_refused_total", uint64(cat.LoadsRefused()))
		ks := cat.KeySets()
		obs.Bool(w, "kurz_edge_keysets_ready", ks.Ready)
		obs.Gauge(w, `kurz_edge_keyset_keys{set="link"}`, float64(ks.Links))
		obs.Gauge(w, `kurz_edge_keyset_keys{set="campaign"}`, float64(ks.Campaigns))
		obs.Gauge(w, `kurz_edge_keyset_keys{set="qr"}`, float64(ks.QRs))
		obs.Gauge(w, "kurz_edge_keysets_bytes", float64(ks.Bytes))
	})
}

// registerListener exposes the change listener and the database pool.
func registerListener(set *metrics.Set, l *listen.Listener, store *pgstore.Store) {
	set.RegisterMetricsWriter(func(w io.Writer) {
		st := l.Stats()
		const p = "kurz_edge_notify_"
		obs.Bool(w, p+"up", st.Up)
		obs.Counter(w, p+"reconnects_total", uint64(st.Reconnects))
		obs.Counter(w, p+"changes_total", st.Changes)
		obs.Seconds(w, p+"lag_seconds", st.Lag)
		obs.Counter(w, p+"probes_total", st.Probes)
		obs.WritePool(w, "kurz_edge_pg_pool", store.PoolStats())
	})
}

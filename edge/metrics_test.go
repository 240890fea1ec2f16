package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"kurz/shared/chstore/chtest"
	"kurz/shared/obs/obstest"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// metricsEnv is a database with two links: "hot" and one called
// "metrics", which must redirect like any other.
func metricsEnv(t *testing.T) (dsn, chDSN string) {
	t.Helper()
	store, dsn := pgtest.Store(t)
	_, chDSN = chtest.New(t)
	ctx := context.Background()
	u, err := store.CreateUser(ctx, pgstore.NewUser{Email: "m@example.com", Username: "m", Plan: "free", APIKeyHash: []byte("k")})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"hot", "https://example.com/hot"}, {"metrics", "https://example.com/m"}} {
		if _, err := pgtest.Pool(store).Exec(ctx, `INSERT INTO links (user_id, alias, long_url) VALUES ($1, $2, $3)`,
			u.ID, l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	return dsn, chDSN
}

// TestMetricsScrape: a running edge's /metrics, on its own listener,
// holds the named series, and they move with the traffic served.
func TestMetricsScrape(t *testing.T) {
	dsn, chDSN := metricsEnv(t)
	maddr := freeAddr(t)
	addr := startEdge(t, dsn, chDSN, "KURZ_EDGE_METRICS_ADDR="+maddr, "KURZ_CLICK_FLUSH_INTERVAL=100ms")
	before := obstest.Scrape(t, maddr)

	const hits = 5
	for range hits {
		if got := locationAt(t, addr, "/hot"); got != "302 https://example.com/hot" {
			t.Fatalf("/hot: %s", got)
		}
	}
	// An unknown alias is answered without a query once the existence set
	// or a cached negative entry knows it; both come a moment after start
	// (the set's load, ristretto's buffered Set), so ask until one does.
	nope := 0
	for deadline := time.Now().Add(10 * time.Second); ; {
		if got := locationAt(t, addr, "/nope"); got != "404 " {
			t.Fatalf("/nope: %s", got)
		}
		nope++
		if nope >= 2 && obstest.Scrape(t, maddr).Get(t, `kurz_edge_cache_negative_hits_total{cache="link"}`) >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/nope asked %d times in 10 s, never answered from the negative cache", nope)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Clicks are inserted within the flush interval; the lag probe of the
	// change listener's session is sent at its start.
	var after obstest.Series
	deadline := time.Now().Add(10 * time.Second)
	for {
		after = obstest.Scrape(t, maddr)
		if after.Get(t, "kurz_edge_clicks_inserted_total") >= hits && after.Get(t, "kurz_edge_notify_probes_total") >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("clicks inserted %v, lag probes %v after 10 s", after["kurz_edge_clicks_inserted_total"],
				after["kurz_edge_notify_probes_total"])
		}
		time.Sleep(100 * time.Millisecond)
	}
	delta := func(name string) float64 { return after.Get(t, name) - before[name] }
	exact := []struct {
		name string
		want float64
	}{
		{`kurz_edge_requests_total{route="link",status="3xx"}`, hits},
		{`kurz_edge_requests_total{route="link",status="4xx"}`, float64(nope)},
		{`kurz_edge_request_duration_seconds_count{route="link"}`, float64(hits + nope)},
		{`kurz_edge_request_duration_seconds_bucket{route="link",le="+Inf"}`, float64(hits + nope)},
		{`kurz_edge_requests_total{route="link",status="5xx"}`, 0},
		{"kurz_edge_clicks_dropped_total", 0},
	}
	for _, c := range exact {
		if got := delta(c.name); got != c.want {
			t.Errorf("%s rose by %v, want %v", c.name, got, c.want)
		}
	}
	atLeast := []struct {
		name string
		min  float64
	}{
		{`kurz_edge_cache_hits_total{cache="link"}`, hits - 1}, // the first visit loads
		{`kurz_edge_cache_misses_total{cache="link"}`, 1},
		{`kurz_edge_cache_negative_hits_total{cache="link"}`, 1}, // waited for above
		{`kurz_edge_cache_bytes{cache="link"}`, 1},
		{`kurz_edge_cache_max_bytes{cache="campaign"}`, 1},
		{`kurz_edge_requests_total{route="health",status="2xx"}`, 0},
		{"kurz_edge_clicks_insert_batches_total", 1},
		{"kurz_edge_clicks_insert_duration_seconds_count", 1},
		{"kurz_edge_clickhouse_up", 1},
		{"kurz_edge_notify_up", 1},
		{"kurz_edge_pg_pool_max_conns", 1},
		{"kurz_edge_pg_pool_acquires_total", 1},
		{"go_goroutines", 1},
		{"process_resident_memory_bytes", 1},
	}
	for _, c := range atLeast {
		if got := after.Get(t, c.name); got < c.min {
			t.Errorf("%s = %v, want at least %v", c.name, got, c.min)
		}
	}
	for _, name := range []string{"kurz_edge_clicks_queue_depth", "kurz_edge_clicks_spool_bytes",
		"kurz_edge_clicks_spool_segments", "kurz_edge_clicks_spool_records", "kurz_edge_clicks_replayed_total",
		"kurz_edge_notify_reconnects_total", `kurz_edge_cache_evictions_total{cache="qr"}`,
		`kurz_edge_cache_hits_total{cache="qr_scan"}`} {
		after.Get(t, name)
	}
	if lag := after.Get(t, "kurz_edge_notify_lag_seconds"); lag < 0 || lag > 1 {
		t.Errorf("notification lag %v s on an idle loopback database", lag)
	}
}

// TestMetricsNotPublic: the public listener has no /metrics; an alias
// called "metrics" redirects like any other.
func TestMetricsNotPublic(t *testing.T) {
	dsn, chDSN := metricsEnv(t)
	maddr := freeAddr(t)
	addr := startEdge(t, dsn, chDSN, "KURZ_EDGE_METRICS_ADDR="+maddr)
	if got := locationAt(t, addr, "/metrics"); got != "302 https://example.com/m" {
		t.Fatalf("public /metrics: %s, want the link's redirect", got)
	}
	if code := obstest.NoSeries(t, noFollow, "http://"+addr+"/metrics/", "kurz_edge_"); code == http.StatusOK {
		t.Fatalf("public /metrics/: %d", code)
	}
	// The metrics listener serves only /metrics.
	resp, err := noFollow.Get("http://" + maddr + "/hot")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("metrics listener /hot: %d, want 404", resp.StatusCode)
	}
}

// TestMetricsOff: KURZ_EDGE_METRICS_ADDR set to an empty value opens no
// metrics listener; the edge serves as usual.
func TestMetricsOff(t *testing.T) {
	dsn, chDSN := metricsEnv(t)
	var log obstest.Buffer
	addr := startEdgeLogging(t, dsn, chDSN, &log, "KURZ_EDGE_METRICS_ADDR=", "KURZ_LOG_LEVEL=info")
	if got := locationAt(t, addr, "/hot"); got != "302 https://example.com/hot" {
		t.Fatalf("/hot: %s", got)
	}
	log.NoMetricsListener(t, "edge serving")
}

package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"kurz/shared/chstore/chtest"
	"kurz/shared/config"
	"kurz/shared/obs/obstest"
	"kurz/shared/pgstore/pgtest"
)

// startAdmin runs `admin serve` in this process against the test's real
// PostgreSQL and ClickHouse, with env on top of its defaults, until the
// test ends; it returns the admin address once /readyz answers.
func startAdmin(t *testing.T, log io.Writer, env map[string]string) string {
	t.Helper()
	_, dsn := pgtest.Store(t)
	_, chDSN := chtest.New(t)
	addr := obstest.FreeAddr(t)
	base := map[string]string{
		"KURZ_DATABASE_URL": dsn, "KURZ_CLICKHOUSE_URL": chDSN, "KURZ_ADMIN_ADDR": addr, "KURZ_DEV": "1",
		"KURZ_PRICE_ADDR": "", "KURZ_DASHBOARD_ADDR": "", "KURZ_PRICE_POLL_URL": "",
	}
	for k, v := range env {
		base[k] = v
	}
	for k, v := range base {
		t.Setenv(k, v)
	}
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, slog.New(slog.NewJSONHandler(log, nil))) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("admin not ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// apiKey creates a user whose key allows limit requests a minute.
func apiKey(t *testing.T, limit string) string {
	t.Helper()
	code, out, errs := runCmd("user", "create", "--email", "m@example.com", "--username", "metrics", "--rate-limit", limit)
	if code != 0 {
		t.Fatalf("user create: exit %d: %s", code, errs)
	}
	var u struct {
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal([]byte(out), &u); err != nil {
		t.Fatal(err)
	}
	return u.APIKey
}

func get(t *testing.T, url, key string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestMetricsScrape: a running admin's /metrics, on its own listener,
// holds the named series, and they move with the traffic served: API
// requests by route and status, rate-limit rejections, the pool, the price
// cache and a failing poller, the Go runtime.
func TestMetricsScrape(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "vendor down", http.StatusBadGateway)
	}))
	defer upstream.Close()
	maddr := obstest.FreeAddr(t)
	addr := startAdmin(t, io.Discard, map[string]string{"KURZ_ADMIN_METRICS_ADDR": maddr,
		"KURZ_PRICE_POLL_URL": upstream.URL + "/q?s={symbol}", "KURZ_PRICE_POLL_SYMBOLS": "AAPL", "KURZ_LOG_LEVEL": "error"})
	key := apiKey(t, "3")
	before := obstest.Scrape(t, maddr)
	var ok, limited int
	for range 5 {
		switch code := get(t, "http://"+addr+"/api/urls", key); code {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
			limited++
		default:
			t.Fatalf("GET /api/urls: %d", code)
		}
	}
	if ok != 3 || limited != 2 {
		t.Fatalf("%d answered, %d limited; want 3 and 2", ok, limited)
	}
	// The price API counts in a bucket of its own: an unknown symbol is a
	// cache miss, then a (negative) hit once ristretto has applied the Set.
	for range 2 {
		if code := get(t, "http://"+addr+"/api/price?symbol=AAPL", key); code != http.StatusNotFound {
			t.Fatalf("price of an unknown symbol: %d, want 404", code)
		}
	}
	var after obstest.Series
	deadline := time.Now().Add(5 * time.Second)
	for after = obstest.Scrape(t, maddr); after["kurz_admin_price_poll_errors_total"] < 1; after = obstest.Scrape(t, maddr) {
		if time.Now().After(deadline) {
			t.Fatal("no failed poll counted in 5 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	delta := func(name string) float64 { return after.Get(t, name) - before[name] }
	for _, c := range []struct {
		name string
		want float64
	}{
		{`kurz_admin_requests_total{route="/api/urls",status="2xx"}`, 3},
		{`kurz_admin_request_duration_seconds_count{route="/api/urls"}`, 3},
		{"kurz_admin_ratelimit_rejections_total", 2},
		{`kurz_admin_requests_total{route="/api/price",status="4xx"}`, 2},
	} {
		if got := delta(c.name); got != c.want {
			t.Errorf("%s rose by %v, want %v", c.name, got, c.want)
		}
	}
	if got := after.Get(t, `kurz_admin_requests_total{route="api",status="4xx"}`); got != 2 {
		t.Errorf("requests refused before routing: %v, want 2", got)
	}
	for _, c := range []struct {
		name string
		min  float64
	}{
		{`kurz_admin_requests_total{route="/readyz",status="2xx"}`, 1},
		{"kurz_admin_pg_pool_max_conns", 1},
		{"kurz_admin_pg_pool_acquires_total", 1},
		{"kurz_admin_price_poll_rounds_total", 1},
		{"kurz_admin_price_poll_fetches_total", 1},
		{"kurz_admin_price_cache_misses_total", 1},
		{"kurz_admin_price_cache_symbols", 1},
		{"go_goroutines", 1},
		{"process_cpu_seconds_total", 0},
	} {
		if got := after.Get(t, c.name); got < c.min {
			t.Errorf("%s = %v, want at least %v", c.name, got, c.min)
		}
	}
	if n := after.Get(t, "kurz_admin_price_cache_hits_total") + after.Get(t, "kurz_admin_price_cache_misses_total"); n < 3 {
		t.Errorf("price cache lookups %v, want at least 3 (a miss looks twice)", n)
	}
	// Not on the public listener: /metrics there is the dashboard's.
	obstest.NoSeries(t, http.DefaultClient, "http://"+addr+"/metrics", "kurz_admin_")
}

// TestMetricsOff: KURZ_ADMIN_METRICS_ADDR set to an empty value opens no
// metrics listener.
func TestMetricsOff(t *testing.T) {
	var log obstest.Buffer
	addr := startAdmin(t, &log, map[string]string{"KURZ_ADMIN_METRICS_ADDR": ""})
	if code := get(t, "http://"+addr+"/healthz", ""); code != http.StatusOK {
		t.Fatalf("healthz: %d", code)
	}
	log.NoMetricsListener(t, "admin ready")
}

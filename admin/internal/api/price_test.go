package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/admin/internal/price"
	"kurz/shared/chstore/chtest"
	"kurz/shared/config"
	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// priceEnv is a testEnv whose server has a price service on real
// PostgreSQL and ClickHouse databases. The cache TTL is an hour, so every
// change a test sees comes from the update path refreshing the cache.
type priceEnv struct {
	*testEnv
	prices *price.Service
	ch     driver.Conn
}

func newPriceEnv(t *testing.T, staleAfter time.Duration) *priceEnv {
	t.Helper()
	st, dsn := pgtest.Store(t)
	ch, _ := chtest.New(t)
	svc, err := price.NewService(st, ch, price.Options{StaleAfter: staleAfter, CacheTTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	cfg := &config.Config{BaseURL: "http://sho.rt", BaseHost: "sho.rt", AnonRateLimit: 1000, Secret: "test-secret"}
	srv := New(Deps{Store: st, Config: cfg, Price: svc})
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &priceEnv{testEnv: &testEnv{t: t, store: st, dsn: dsn, cfg: cfg, srv: srv, http: hs}, prices: svc, ch: ch}
}

func operator(o *userOpt) { o.operator = true }

// seed stores quotes directly through the service.
func (e *priceEnv) seed(ticks ...pgstore.Quote) {
	e.t.Helper()
	if _, err := e.prices.Update(context.Background(), ticks, price.SourceImport); err != nil {
		e.t.Fatal(err)
	}
}

// get sends GET path with the key in the header and/or the query.
func (e *priceEnv) get(path, headerKey, queryKey string) response {
	e.t.Helper()
	if queryKey != "" {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		path += sep + "key=" + url.QueryEscape(queryKey)
	}
	return e.do(http.MethodGet, path, headerKey, nil)
}

func TestPriceGet(t *testing.T) {
	t.Parallel()
	e := newPriceEnv(t, 24*time.Hour)
	_, key := e.user("alice")
	old := time.Date(2026, 11, 20, 16, 0, 0, 0, time.UTC)
	fresh := time.Now().Add(-time.Minute).Truncate(time.Second)
	e.seed(
		pgstore.Quote{Symbol: "AAPL", Price: "189.25", Currency: "USD", QuotedAt: fresh},
		pgstore.Quote{Symbol: "XETRA:SAP", Price: "201.350", Currency: "EUR", QuotedAt: old},
		pgstore.Quote{Symbol: "TINY", Price: "0.1", Currency: "USD", QuotedAt: old},
	)
	tests := []struct {
		query, symbol, rawPrice, last string
		stale                         bool
	}{
		{"AAPL", "AAPL", `"price":189.25,`, fresh.Format("2006-01-02T15:04:05") + "+00:00", false},
		{"%20aapl%20", "AAPL", `"price":189.25,`, fresh.Format("2006-01-02T15:04:05") + "+00:00", false},
		{"xetra:sap", "XETRA:SAP", `"price":201.350,`, "2026-11-20T16:00:00+00:00", true},
		{"TINY", "TINY", `"price":0.1,`, "2026-11-20T16:00:00+00:00", true},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := e.get("/api/price?symbol="+tt.query, key, "").wantStatus(t, http.StatusOK)
			wantKeys(t, r.Body, map[string]string{"error": "number", "symbol": "string", "price": "number",
				"currency": "string", "last_updated": "string", "stale": "bool"})
			if len(r.Body) != 6 || r.Body["error"] != float64(0) || r.Body["symbol"] != tt.symbol ||
				r.Body["last_updated"] != tt.last || r.Body["stale"] != tt.stale {
				t.Errorf("body %s", r.Raw)
			}
			// The number is the stored decimal text, byte for byte.
			if !strings.Contains(string(r.Raw), tt.rawPrice) {
				t.Errorf("body %s does not contain %s", r.Raw, tt.rawPrice)
			}
			for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
				if r.Header.Get(h) == "" {
					t.Errorf("missing header %s", h)
				}
			}
		})
	}
}

func TestPriceAuth(t *testing.T) {
	t.Parallel()
	e := newPriceEnv(t, 0)
	five, seven := 5, 7
	_, alice := e.user("alice", func(o *userOpt) { o.rateLimit = &five })
	_, bob := e.user("bob", func(o *userOpt) { o.rateLimit = &seven })
	past := time.Now().Add(-time.Hour)
	_, expired := e.user("old", func(o *userOpt) { o.expires = &past })
	e.seed(pgstore.Quote{Symbol: "AAPL", Price: "1", Currency: "USD", QuotedAt: past})
	const path = "/api/price?symbol=AAPL"
	tests := []struct {
		name          string
		header, query string
		status        int
		limit         string // X-RateLimit-Limit proves whose key counted
		msg           string
	}{
		{"header", alice, "", 200, "5", ""},
		{"query key", "", bob, 200, "7", ""},
		{"header wins over query", alice, bob, 200, "5", ""},
		{"header wins even when invalid", "kurz_nope", bob, 401, "1000", "invalid API key"},
		{"missing", "", "", 401, "1000", "key query parameter"},
		{"unknown query key", "", "kurz_nope", 401, "1000", "invalid API key"},
		{"expired query key", "", expired, 401, "1000", "expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.get(path, tt.header, tt.query).wantStatus(t, tt.status)
			if tt.msg != "" {
				r.wantMessage(t, tt.msg)
			}
			if got := r.Header.Get("X-RateLimit-Limit"); got != tt.limit {
				t.Errorf("X-RateLimit-Limit = %q, want %q", got, tt.limit)
			}
		})
	}
}

func TestPriceErrors(t *testing.T) {
	t.Parallel()
	e := newPriceEnv(t, 0)
	_, key := e.user("alice")
	tests := []struct {
		method, path string
		status       int
		msg          string
	}{
		{"GET", "/api/price", 400, "symbol: required"},
		{"GET", "/api/price?symbol=", 400, "symbol: required"},
		{"GET", "/api/price?symbol=%20%20", 400, "symbol: required"},
		{"GET", "/api/price?symbol=AA%20PL", 400, "symbol: must be 1 to 32 letters"},
		{"GET", "/api/price?symbol=%3Cscript%3E", 400, "symbol: must be"},
		{"GET", "/api/price?symbol=" + strings.Repeat("A", 33), 400, "symbol: must be 1 to 32"},
		{"GET", "/api/price?symbol=A:B:C", 400, "symbol: must be"},
		{"GET", "/api/price?symbol=zzzz", 404, "symbol ZZZZ not found"},
		{"DELETE", "/api/price?symbol=AAPL", 405, "not allowed"},
		{"GET", "/api/price/update", 405, "not allowed"},
		{"GET", "/api/price/nope", 404, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			e.do(tt.method, tt.path, key, nil).wantStatus(t, tt.status).wantMessage(t, tt.msg)
		})
	}
}

func TestPriceRateLimitWindow(t *testing.T) {
	t.Parallel()
	e := newPriceEnv(t, 0)
	two := 2
	_, key := e.user("alice", func(o *userOpt) { o.rateLimit = &two })
	e.seed(pgstore.Quote{Symbol: "AAPL", Price: "1", Currency: "USD", QuotedAt: time.Now().Add(-time.Hour)})
	// Header and query key count in the same price window.
	r := e.get("/api/price?symbol=AAPL", key, "").wantStatus(t, 200)
	if r.Header.Get("X-RateLimit-Limit") != "2" || r.Header.Get("X-RateLimit-Remaining") != "1" {
		t.Errorf("first: headers %v", r.Header)
	}
	reset, err := strconv.ParseInt(r.Header.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil || reset < time.Now().Unix() || reset > time.Now().Add(61*time.Second).Unix() {
		t.Errorf("X-RateLimit-Reset = %q", r.Header.Get("X-RateLimit-Reset"))
	}
	r = e.get("/api/price?symbol=AAPL", "", key).wantStatus(t, 200)
	if r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("second: remaining %q", r.Header.Get("X-RateLimit-Remaining"))
	}
	r = e.get("/api/price?symbol=AAPL", "", key).wantStatus(t, http.StatusTooManyRequests)
	r.wantMessage(t, "rate limit exceeded")
	if r.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// The link API's window for the same key is untouched.
	r = e.do("GET", "/api/account", key, nil).wantStatus(t, 200)
	if r.Header.Get("X-RateLimit-Limit") != "2" || r.Header.Get("X-RateLimit-Remaining") != "1" {
		t.Errorf("link API after price limit: limit %q remaining %q", r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"))
	}
}

func TestPricePush(t *testing.T) {
	t.Parallel()
	e := newPriceEnv(t, 0)
	_, user := e.user("alice")
	_, op := e.user("ops", operator)
	at := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	ts := at.Format(time.RFC3339)
	one := map[string]any{"symbol": "aapl", "price": json.Number("189.25"), "currency": "usd", "timestamp": ts}
	many := make([]map[string]any, 1001)
	for i := range many {
		many[i] = one
	}
	tests := []struct {
		name   string
		key    string
		body   any
		status int
		msg    string
	}{
		{"non-operator", user, one, 403, "operator"},
		{"not json", op, `{"symbol":`, 400, "malformed JSON"},
		{"number body", op, `5`, 400, "tick object or an array"},
		{"empty array", op, `[]`, 400, "no ticks"},
		{"too many", op, many, 400, "at most 1000 ticks"},
		{"bad field single", op, map[string]any{"symbol": "AAPL", "price": "abc", "currency": "USD", "timestamp": ts}, 400, "price: must be a decimal"},
		{"bad tick in array", op, []any{
			map[string]any{"symbol": "GOOD", "price": 1, "currency": "USD", "timestamp": ts},
			map[string]any{"symbol": "GOOD2", "price": 1, "currency": "USD", "timestamp": "2099-01-01T00:00:00Z"},
		}, 400, "[1].timestamp: must not lie more than 5 minutes in the future"},
		{"non-object in array", op, []any{one, 7}, 400, "[1].tick: must be a JSON object"},
		{"missing symbol in array", op, []any{map[string]any{"price": 1}}, 400, "[0].symbol: required"},
		{"single ok", op, one, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/api/price/update", tt.key, tt.body).wantStatus(t, tt.status)
			if tt.msg != "" {
				r.wantMessage(t, tt.msg)
			}
		})
	}
	// All or nothing: the valid tick before the bad one was not stored.
	e.do("GET", "/api/price?symbol=GOOD", op, nil).wantStatus(t, 404)

	r := e.do("POST", "/api/price/update", op, []any{
		map[string]any{"symbol": "MSFT", "price": "415.10", "currency": "USD", "timestamp": ts},
		map[string]any{"symbol": "MSFT", "price": "400", "currency": "USD", "timestamp": at.Add(-time.Minute).Format(time.RFC3339)},
		map[string]any{"symbol": "AAPL", "price": 1, "currency": "USD", "timestamp": at.Add(-time.Minute).Format(time.RFC3339)},
	}).wantStatus(t, 200)
	wantKeys(t, r.Body, map[string]string{"error": "number", "message": "string", "accepted": "number", "updated": "number"})
	if r.Body["accepted"] != float64(3) || r.Body["updated"] != float64(1) {
		t.Errorf("array push: %s", r.Raw)
	}
	// A body that is not JSON is refused before anything else; JSON is
	// read whatever its label (docs/api.md "Compatibility").
	req, _ := http.NewRequest("POST", e.http.URL+"/api/price/update", strings.NewReader(`symbol,price`))
	req.Header.Set("Authorization", "Bearer "+op)
	req.Header.Set("Content-Type", "text/csv")
	e.send(req).wantStatus(t, http.StatusUnsupportedMediaType)
	req, _ = http.NewRequest("POST", e.http.URL+"/api/price/update", strings.NewReader(`[]`))
	req.Header.Set("Authorization", "Bearer "+op)
	req.Header.Set("Content-Type", "text/plain")
	e.send(req).wantStatus(t, http.StatusBadRequest).wantMessage(t, "no ticks")
	// A form cannot carry ticks (an object or an array of them).
	req, _ = http.NewRequest("POST", e.http.URL+"/api/price/update", strings.NewReader(`symbol=AAPL&price=1`))
	req.Header.Set("Authorization", "Bearer "+op)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	e.send(req).wantStatus(t, http.StatusUnsupportedMediaType).wantMessage(t, "JSON body")

	// Every accepted tick, the older ones too, is in ClickHouse.
	var n uint64
	if err := e.ch.QueryRow(context.Background(), "SELECT count() FROM price_ticks WHERE source = 'push'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("price_ticks has %d pushed rows, want 4", n)
	}
}

func TestPriceCacheRefreshOnUpdate(t *testing.T) {
	t.Parallel()
	e := newPriceEnv(t, 0)
	_, op := e.user("ops", operator)
	t0 := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	push := func(p string, at time.Time) response {
		t.Helper()
		return e.do("POST", "/api/price/update", op,
			map[string]any{"symbol": "AAPL", "price": json.Number(p), "currency": "USD", "timestamp": at.Format(time.RFC3339)}).wantStatus(t, 200)
	}
	wantPrice := func(step, p string, at time.Time) {
		t.Helper()
		r := e.get("/api/price?symbol=AAPL", op, "").wantStatus(t, 200)
		if !strings.Contains(string(r.Raw), `"price":`+p+`,`) || r.Body["last_updated"] != at.Format("2006-01-02T15:04:05+00:00") {
			t.Errorf("%s: body %s, want price %s at %s", step, r.Raw, p, at)
		}
	}
	// Unknown symbols are cached as unknown; a push replaces that too.
	e.get("/api/price?symbol=AAPL", op, "").wantStatus(t, 404)
	push("189.25", t0)
	wantPrice("first push", "189.25", t0)
	push("190.10", t0.Add(time.Minute))
	wantPrice("newer push", "190.10", t0.Add(time.Minute))
	if r := push("1.00", t0.Add(-time.Minute)); r.Body["updated"] != float64(0) {
		t.Errorf("older push reported as an update: %s", r.Raw)
	}
	wantPrice("older push", "190.10", t0.Add(time.Minute))
}

// The KURZ_PRICE_ADDR listener serves the price API and nothing of the
// link API.
func TestPriceOnlyListener(t *testing.T) {
	t.Parallel()
	e := newPriceEnv(t, 0)
	_, key := e.user("alice")
	e.seed(pgstore.Quote{Symbol: "AAPL", Price: "1", Currency: "USD", QuotedAt: time.Now().Add(-time.Hour)})
	hs := httptest.NewServer(e.srv.PriceHandler())
	defer hs.Close()
	e.http = hs
	e.get("/api/price?symbol=AAPL", "", key).wantStatus(t, 200)
	e.do("GET", "/api/account", key, nil).wantStatus(t, 404)
}

func TestPriceWithoutService(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	e.do("GET", "/api/price?symbol=AAPL", key, nil).wantStatus(t, http.StatusServiceUnavailable)
}

// BenchmarkPriceHit measures the price handler on a cache hit: the work
// after the guard has authenticated the caller.
func BenchmarkPriceHit(b *testing.B) {
	st, _ := pgtest.Store(b)
	svc, err := price.NewService(st, nil, price.Options{StaleAfter: time.Hour, CacheTTL: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	if _, err := svc.Update(context.Background(), []pgstore.Quote{{Symbol: "AAPL", Price: "189.25", Currency: "USD", QuotedAt: time.Now().Add(-time.Minute)}}, price.SourcePush); err != nil {
		b.Fatal(err)
	}
	srv := New(Deps{Store: st, Config: &config.Config{}, Price: svc})
	u := &link.User{ID: 1}
	req := httptest.NewRequest(http.MethodGet, "/api/price?symbol=AAPL", nil)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w := httptest.NewRecorder()
		if err := srv.getPrice(w, req, u); err != nil || w.Code != http.StatusOK {
			b.Fatal(err, w.Code)
		}
	}
}

package price

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"kurz/shared/link"
	"kurz/shared/pgstore"
)

// fakeUpstream is a market-data vendor on loopback whose behaviour per
// symbol the test sets; it counts the requests per symbol.
type fakeUpstream struct {
	*httptest.Server
	mu    sync.Mutex
	mode  map[string]string
	hits  map[string]int
	quote map[string]string // body for mode "ok"
}

func newUpstream(t *testing.T) *fakeUpstream {
	t.Helper()
	u := &fakeUpstream{mode: map[string]string{}, hits: map[string]int{}, quote: map[string]string{}}
	u.Server = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.Close)
	return u
}

func (u *fakeUpstream) set(sym, mode, body string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.mode[sym], u.quote[sym] = mode, body
}

func (u *fakeUpstream) count(sym string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.hits[sym]
}

func (u *fakeUpstream) serve(w http.ResponseWriter, r *http.Request) {
	sym := r.URL.Query().Get("s")
	u.mu.Lock()
	u.hits[sym]++
	mode, body := u.mode[sym], u.quote[sym]
	u.mu.Unlock()
	switch mode {
	case "ok":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	case "500":
		http.Error(w, "boom", http.StatusInternalServerError)
	case "slow":
		select { // outlive the poller's timeout; return when it gives up
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	case "garbage":
		io.WriteString(w, "<html>not json")
	default:
		http.NotFound(w, r)
	}
}

// vendorBody is a nested vendor response.
func vendorBody(price any, ccy string, at time.Time) string {
	b, _ := json.Marshal(map[string]any{"data": map[string]any{"last": price, "ccy": ccy, "time": at.UTC().Format(time.RFC3339)}})
	return string(b)
}

var vendorFields = Fields{Price: "data.last", Currency: "data.ccy", Time: "data.time"}

func TestHTTPProviderFetch(t *testing.T) {
	t.Parallel()
	up := newUpstream(t)
	at := time.Now().Add(-time.Minute).Truncate(time.Second)
	p, err := NewHTTPProvider(up.URL+"/quote?s={symbol}&apikey=SECRET", vendorFields, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		sym, mode, body string
		price           string // want on success
		errPart         string // want in the error otherwise
	}{
		{"AAPL", "ok", vendorBody(json.Number("189.250"), "usd", at), "189.250", ""},
		{"XETRA:SAP", "ok", vendorBody("201.35", "EUR", at), "201.35", ""},
		{"UNIX", "ok", fmt.Sprintf(`{"data":{"last":1.5,"ccy":"USD","time":%d}}`, at.Unix()), "1.5", ""},
		{"E500", "500", "", "", "upstream status 500"},
		{"E404", "", "", "", "upstream status 404"},
		{"JUNK", "garbage", "", "", "not JSON"},
		{"NOPRICE", "ok", `{"data":{"ccy":"USD","time":"2026-11-20T16:00:00Z"}}`, "", `field "data.last": missing`},
		{"NODATA", "ok", `{"price":1}`, "", `field "data.last": missing`},
		{"ARRAY", "ok", `{"data":[1,2]}`, "", `not an object`},
		{"BADPRICE", "ok", vendorBody("n/a", "USD", at), "", "price: must be a decimal"},
		{"ZERO", "ok", vendorBody(0, "USD", at), "", "price: must be a decimal number greater than 0"},
		{"BOOL", "ok", vendorBody(true, "USD", at), "", "want a string or number, got a boolean"},
		{"BADCCY", "ok", vendorBody(1, "dollars", at), "", "currency: must be"},
		{"FUTURE", "ok", vendorBody(1, "USD", time.Now().Add(time.Hour)), "", "timestamp: must not lie"},
		{"BADTIME", "ok", `{"data":{"last":1,"ccy":"USD","time":"yesterday"}}`, "", "timestamp: must be"},
	}
	for _, tt := range tests {
		t.Run(tt.sym, func(t *testing.T) {
			up.set(tt.sym, tt.mode, tt.body)
			q, err := p.Fetch(context.Background(), tt.sym)
			if tt.errPart == "" {
				if err != nil {
					t.Fatalf("Fetch: %v", err)
				}
				if q.Symbol != tt.sym || q.Price != tt.price || len(q.Currency) != 3 || !q.QuotedAt.Equal(at) {
					t.Errorf("quote = %+v", q)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.errPart) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.errPart)
			}
		})
	}
	// Errors never leak the URL (templates carry vendor API keys).
	up.set("SLOW", "slow", "")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = p.Fetch(ctx, "SLOW")
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("timeout: err = %v", err)
	}
}

func TestHTTPProviderNoTimeField(t *testing.T) {
	t.Parallel()
	up := newUpstream(t)
	up.set("AAPL", "ok", `{"price":"189.25","currency":"USD"}`)
	p, err := NewHTTPProvider(up.URL+"/?s={symbol}", Fields{Price: "price", Currency: "currency"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Second)
	q, err := p.Fetch(context.Background(), "AAPL")
	if err != nil || q.Price != "189.25" || q.QuotedAt.Before(before) {
		t.Errorf("quote = %+v, %v; want the receive time", q, err)
	}
}

func TestNewHTTPProviderRejects(t *testing.T) {
	tests := []struct {
		tmpl string
		f    Fields
	}{
		{"https://vendor.example/quote", vendorFields},
		{"ftp://vendor.example/{symbol}", vendorFields},
		{"/quote?s={symbol}", vendorFields},
		{"https://vendor.example/q?s={symbol}", Fields{Price: "p"}},
	}
	for _, tt := range tests {
		if _, err := NewHTTPProvider(tt.tmpl, tt.f, nil); err == nil {
			t.Errorf("NewHTTPProvider(%q, %+v) accepted", tt.tmpl, tt.f)
		}
	}
}

func TestPollerIsolatesAndBacksOff(t *testing.T) {
	t.Parallel()
	svc, _, ch := testService(t, Options{CacheTTL: time.Hour})
	up := newUpstream(t)
	at := time.Now().Add(-time.Minute).Truncate(time.Second)
	up.set("GOOD", "ok", vendorBody(json.Number("101.50"), "USD", at))
	up.set("FAIL", "500", "")
	up.set("SLOW", "slow", "")
	up.set("JUNK", "garbage", "")
	up.set("HALF", "ok", `{"data":{"last":5}}`) // currency missing
	prov, err := NewHTTPProvider(up.URL+"/q?s={symbol}", vendorFields, nil)
	if err != nil {
		t.Fatal(err)
	}
	const interval = time.Minute
	p, err := NewPoller(prov, func(ctx context.Context, ticks []pgstore.Quote) error {
		_, err := svc.Update(ctx, ticks, SourcePoll)
		return err
	}, PollConfig{
		Symbols:  []string{"good", "FAIL", "SLOW", "JUNK", "HALF", "GOOD"},
		Interval: interval, Timeout: 200 * time.Millisecond,
	}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t0 := time.Now()

	start := time.Now()
	ok, failed := p.round(ctx, t0)
	if ok != 1 || failed != 4 {
		t.Fatalf("round 1: ok %d, failed %d; want 1 and 4", ok, failed)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("round took %s: the slow symbol was not cut off by its timeout", d)
	}
	if st := p.Stats(); st != (PollStats{Rounds: 1, Fetches: 5, FetchErrors: 4, Stored: 1}) {
		t.Errorf("round 1 stats %+v", st)
	}
	if a := mustGet(t, svc, "GOOD"); a.Price != "101.50" || !a.QuotedAt.Equal(at) {
		t.Errorf("GOOD = %+v", a)
	}
	for _, sym := range []string{"FAIL", "SLOW", "JUNK", "HALF"} {
		if _, err := svc.Get(ctx, sym); !errors.Is(err, link.ErrNotFound) {
			t.Errorf("%s stored although its fetch failed: %v", sym, err)
		}
	}

	// Rounds 2..15: GOOD every round; a failing symbol after 2, 4, 8 rounds.
	for k := 1; k < 15; k++ {
		p.round(ctx, t0.Add(time.Duration(k)*interval))
	}
	if n := up.count("GOOD"); n != 15 {
		t.Errorf("GOOD fetched %d times in 15 rounds, want 15", n)
	}
	for _, sym := range []string{"FAIL", "SLOW", "JUNK", "HALF"} {
		if n := up.count(sym); n != 4 { // rounds 0, 2, 6, 14
			t.Errorf("%s fetched %d times in 15 rounds, want 4 (exponential backoff)", sym, n)
		}
	}
	// The vendor repeated GOOD's quote 15 times; history holds it once.
	var n uint64
	if err := ch.QueryRow(ctx, "SELECT count() FROM price_ticks WHERE symbol = 'GOOD' AND source = 'poll'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("price_ticks has %d GOOD rows, want 1", n)
	}

	// FAIL recovers: it is fetched when its pause ends (round 30) and its
	// quote is stored; the pause resets.
	up.set("FAIL", "ok", vendorBody("7.25", "EUR", at))
	p.round(ctx, t0.Add(29*interval))
	if _, err := svc.Get(ctx, "FAIL"); !errors.Is(err, link.ErrNotFound) {
		t.Errorf("FAIL fetched during its pause: %v", err)
	}
	p.round(ctx, t0.Add(30*interval))
	if a := mustGet(t, svc, "FAIL"); a.Price != "7.25" || a.Currency != "EUR" {
		t.Errorf("FAIL after recovery = %+v", a)
	}
	before := up.count("FAIL")
	p.round(ctx, t0.Add(31*interval))
	if up.count("FAIL") != before+1 {
		t.Error("a recovered symbol is not fetched every round")
	}
}

func TestPollerRun(t *testing.T) {
	t.Parallel()
	svc, _, _ := testService(t, Options{CacheTTL: time.Hour})
	up := newUpstream(t)
	prov, err := NewHTTPProvider(up.URL+"/q?s={symbol}", vendorFields, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPoller(prov, func(ctx context.Context, ticks []pgstore.Quote) error {
		_, err := svc.Update(ctx, ticks, SourcePoll)
		return err
	}, PollConfig{Symbols: []string{"AAPL"}, Interval: 20 * time.Millisecond}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx) }()
	defer func() { cancel(); <-done }()

	// Each new vendor quote shows up while the poller runs.
	for i, price := range []string{"1.10", "1.20"} {
		up.set("AAPL", "ok", vendorBody(price, "USD", time.Now().Add(time.Duration(i-5)*time.Second)))
		deadline := time.Now().Add(5 * time.Second)
		for {
			a, err := svc.Get(context.Background(), "AAPL")
			if err == nil && a.Price == price {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("price %s never polled: %+v %v", price, a, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestNewPollerRejects(t *testing.T) {
	sink := func(context.Context, []pgstore.Quote) error { return nil }
	if _, err := NewPoller(nil, sink, PollConfig{}, nil); err == nil {
		t.Error("no symbols accepted")
	}
	if _, err := NewPoller(nil, sink, PollConfig{Symbols: []string{"AAPL", "BAD SYMBOL"}}, nil); err == nil || !strings.Contains(err.Error(), "BAD SYMBOL") {
		t.Errorf("bad symbol: err = %v", err)
	}
}

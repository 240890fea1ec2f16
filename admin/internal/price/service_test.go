package price

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore/chtest"
	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// testService is a Service on a fresh PostgreSQL and ClickHouse database.
func testService(t testing.TB, o Options) (*Service, *pgstore.Store, driver.Conn) {
	t.Helper()
	st, _ := pgtest.Store(t)
	ch, _ := chtest.New(t)
	svc, err := NewService(st, ch, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc, st, ch
}

func tick(sym, price string, at time.Time) pgstore.Quote {
	return pgstore.Quote{Symbol: sym, Price: price, Currency: "USD", QuotedAt: at.UTC()}
}

func mustGet(t *testing.T, svc *Service, sym string) Answer {
	t.Helper()
	a, err := svc.Get(context.Background(), sym)
	if err != nil {
		t.Fatalf("Get(%s): %v", sym, err)
	}
	return a
}

func update(t *testing.T, svc *Service, ticks ...pgstore.Quote) int {
	t.Helper()
	n, err := svc.Update(context.Background(), ticks, SourcePush)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	return n
}

func TestUpdateIsMonotonic(t *testing.T) {
	t.Parallel()
	// A long TTL: every change seen below comes from Update refreshing the
	// cache, not from expiry.
	svc, st, _ := testService(t, Options{CacheTTL: time.Hour})
	ctx := context.Background()
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)

	if _, err := svc.Get(ctx, "AAPL"); !errors.Is(err, link.ErrNotFound) {
		t.Fatalf("unknown symbol: err = %v", err)
	}
	// The cached "unknown" is replaced by the first update.
	if n := update(t, svc, tick("AAPL", "189.250", t0)); n != 1 {
		t.Fatalf("first tick changed %d quotes", n)
	}
	if a := mustGet(t, svc, "AAPL"); a.Price != "189.250" || !a.QuotedAt.Equal(t0) {
		t.Fatalf("after first tick: %+v", a)
	}
	steps := []struct {
		name    string
		ticks   []pgstore.Quote
		changed int
		price   string
	}{
		{"newer wins", []pgstore.Quote{tick("AAPL", "190.10", t0.Add(time.Minute))}, 1, "190.10"},
		{"older loses", []pgstore.Quote{tick("AAPL", "1.00", t0.Add(-time.Minute))}, 0, "190.10"},
		{"equal time loses", []pgstore.Quote{tick("AAPL", "2.00", t0.Add(time.Minute))}, 0, "190.10"},
		{"newest of a batch wins", []pgstore.Quote{
			tick("AAPL", "191.00", t0.Add(3*time.Minute)),
			tick("AAPL", "192.00", t0.Add(4*time.Minute)),
			tick("AAPL", "190.50", t0.Add(2*time.Minute)),
		}, 1, "192.00"},
	}
	for _, s := range steps {
		if n := update(t, svc, s.ticks...); n != s.changed {
			t.Errorf("%s: changed %d, want %d", s.name, n, s.changed)
		}
		if a := mustGet(t, svc, "AAPL"); a.Price != s.price {
			t.Errorf("%s: cached price %s, want %s", s.name, a.Price, s.price)
		}
		q, err := st.Quote(ctx, "AAPL")
		if err != nil || q.Price != s.price {
			t.Errorf("%s: stored %+v, %v; want %s", s.name, q, err, s.price)
		}
	}
}

func TestGetAnswer(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)
	svc, _, _ := testService(t, Options{StaleAfter: time.Hour, Now: func() time.Time { return now }})
	update(t, svc,
		tick("FRESH", "10", now.Add(-59*time.Minute)),
		tick("OLD", "0.0001", time.Date(2026, 11, 21, 16, 0, 0, 0, time.UTC)),
		tick("FRAC", "5.5", time.Date(2026, 11, 21, 16, 0, 0, 250000000, time.UTC)),
	)
	tests := []struct {
		sym, price, last string
		stale            bool
	}{
		{"FRESH", "10", "2026-11-21T17:01:00+00:00", false},
		{"OLD", "0.0001", "2026-11-21T16:00:00+00:00", true},
		{"FRAC", "5.5", "2026-11-21T16:00:00.25+00:00", true},
	}
	for _, tt := range tests {
		for _, pass := range []string{"from PostgreSQL", "from the cache"} {
			if pass == "from PostgreSQL" {
				svc.cache.Clear()
			}
			a := mustGet(t, svc, tt.sym)
			if a.Price != tt.price || a.LastUpdated != tt.last || a.Stale != tt.stale || a.Currency != "USD" {
				t.Errorf("%s %s: %+v", tt.sym, pass, a)
			}
		}
	}
}

// Updates by another process (the import command) reach a running
// service's cache within the TTL.
func TestCacheTTLSeesOtherWriters(t *testing.T) {
	t.Parallel()
	svc, st, ch := testService(t, Options{CacheTTL: 100 * time.Millisecond})
	other, err := NewService(st, ch, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	t0 := time.Now().Add(-time.Hour)
	update(t, svc, tick("AAPL", "1", t0))
	mustGet(t, svc, "AAPL")
	update(t, other, tick("AAPL", "2", t0.Add(time.Second)))
	deadline := time.Now().Add(5 * time.Second)
	for mustGet(t, svc, "AAPL").Price != "2" {
		if time.Now().After(deadline) {
			t.Fatal("the other writer's quote never became visible")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTicksLandInClickHouse(t *testing.T) {
	t.Parallel()
	svc, _, ch := testService(t, Options{})
	t0 := time.Date(2026, 11, 20, 16, 0, 0, 0, time.UTC)
	ticks := []pgstore.Quote{
		tick("AAPL", "189.25", t0),
		tick("AAPL", "188.1", t0.Add(-time.Hour)), // older: not the quote, still history
		{Symbol: "XETRA:SAP", Price: "0.0000000001", Currency: "EUR", QuotedAt: t0},
	}
	if _, err := svc.Update(context.Background(), ticks, SourceImport); err != nil {
		t.Fatal(err)
	}
	rows, err := ch.Query(context.Background(),
		"SELECT symbol, toString(price), toString(currency), toString(source), ts FROM price_ticks ORDER BY symbol, ts")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var sym, price, cur, src string
		var ts time.Time
		if err := rows.Scan(&sym, &price, &cur, &src, &ts); err != nil {
			t.Fatal(err)
		}
		got = append(got, sym+" "+price+" "+cur+" "+src+" "+ts.UTC().Format(time.RFC3339))
	}
	want := []string{
		"AAPL 188.1000000000 USD import 2026-11-20T15:00:00Z",
		"AAPL 189.2500000000 USD import 2026-11-20T16:00:00Z",
		"XETRA:SAP 0.0000000001 EUR import 2026-11-20T16:00:00Z",
	}
	if len(got) != len(want) {
		t.Fatalf("price_ticks = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func BenchmarkServiceGetHit(b *testing.B) {
	svc, _, _ := testService(b, Options{StaleAfter: time.Hour, CacheTTL: time.Hour})
	if _, err := svc.Update(context.Background(), []pgstore.Quote{tick("AAPL", "189.25", time.Now().Add(-time.Minute))}, SourcePush); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := svc.Get(ctx, "AAPL"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestUpdateAfterCachedMiss: a symbol asked for before its first quote
// is found right after the update that brings it. The miss is cached
// through ristretto's buffer; an update landing while it is still there
// used to be dropped by the cache, which then kept "unknown" for the TTL
// (TestUpdateIsMonotonic failed so, once in a while). Many symbols make
// the window likely to be hit.
func TestUpdateAfterCachedMiss(t *testing.T) {
	t.Parallel()
	svc, _, _ := testService(t, Options{CacheTTL: time.Hour})
	ctx := context.Background()
	at := time.Now().Add(-time.Minute).Truncate(time.Second)
	for i := range 300 {
		sym := fmt.Sprintf("S%d", i)
		if _, err := svc.Get(ctx, sym); !errors.Is(err, link.ErrNotFound) {
			t.Fatalf("%s before its quote: %v", sym, err)
		}
		update(t, svc, tick(sym, "1.5", at))
		if a, err := svc.Get(ctx, sym); err != nil || a.Price != "1.5" {
			t.Fatalf("%s right after its first quote: %+v, %v", sym, a, err)
		}
	}
}

package pgstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"kurz/shared/pgstore/pgtest"
)

func TestCountRequestConcurrent(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	awayFromWindowEdge()
	var wg sync.WaitGroup
	seen := make(chan int, 40)
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, reset, err := st.CountRequest(ctx, "k", time.Minute)
			if err != nil {
				t.Error(err)
				return
			}
			if d := time.Until(reset); d <= 0 || d > time.Minute+time.Second {
				t.Errorf("reset in %v", d)
			}
			seen <- n
		}()
	}
	wg.Wait()
	close(seen)
	got := map[int]bool{}
	for n := range seen {
		if got[n] {
			t.Fatalf("count %d returned twice: lost update", n)
		}
		got[n] = true
	}
	for i := 1; i <= 40; i++ {
		if !got[i] {
			t.Fatalf("count %d missing", i)
		}
	}
	// Another bucket is independent.
	if n, _, _ := st.CountRequest(ctx, "other", time.Minute); n != 1 {
		t.Fatalf("other bucket at %d", n)
	}
}

// awayFromWindowEdge waits out the last seconds of a minute so a test's
// requests all fall into one fixed window.
func awayFromWindowEdge() {
	if left := time.Until(time.Now().Truncate(time.Minute).Add(time.Minute)); left < 3*time.Second {
		time.Sleep(left + 100*time.Millisecond)
	}
}

// Pruning deletes the counters whose window started more than maxAge ago
// by the database clock and keeps the rest.
func TestPruneRateLimits(t *testing.T) {
	st, dsn := pgtest.Store(t)
	ctx := context.Background()
	pgtest.AddRateLimit(t, dsn, "old", time.Now().Add(-2*time.Hour), 9)
	pgtest.AddRateLimit(t, dsn, "hour", time.Now().Add(-50*time.Minute), 2)
	if _, _, err := st.CountRequest(ctx, "now", time.Minute); err != nil {
		t.Fatal(err)
	}
	n, err := st.PruneRateLimits(ctx, time.Hour)
	if err != nil || n != 1 {
		t.Fatalf("pruned %d, %v; want 1", n, err)
	}
	if got := pgtest.RateLimitBuckets(t, dsn, ""); len(got) != 2 || got[0] != "hour" || got[1] != "now" {
		t.Fatalf("left %q", got)
	}
}

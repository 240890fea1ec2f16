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

package pgstore_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kurz/shared/pgstore/pgtest"
)

// Two holders of the ClickHouse migration lock, on two connections, never
// run at the same time.
func TestClickHouseMigrationLockSerialises(t *testing.T) {
	st, _ := pgtest.Store(t)
	var active, most atomic.Int32
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			err := st.WithClickHouseMigrationLock(context.Background(), func() error {
				n := active.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				time.Sleep(50 * time.Millisecond)
				active.Add(-1)
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Fatalf("%d holders at once, want 1", most.Load())
	}
}

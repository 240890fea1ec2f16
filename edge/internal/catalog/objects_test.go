package catalog

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A del (a QR code's change notice) that lands while a load reads the old
// row must win: ristretto applies the load's Set after the Del, and found
// entries have no TTL, so the old row would stay cached.
func TestObjectCacheDelDuringLoadWins(t *testing.T) {
	o, err := newObjects("test", 1<<20, Config{LoadTimeout: time.Second, NegativeTTL: time.Second}, &reads{}, func(string) int64 { return 1 })
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()
	loads := 0
	load := func(context.Context, Source) (string, error) {
		loads++
		if loads == 1 {
			o.del("k") // the change commits and is notified mid-read
		}
		return fmt.Sprint("row", loads), nil
	}
	if v, _, err := o.get("k", load); err != nil || v != "row1" {
		t.Fatalf("first get: %q %v", v, err)
	}
	o.c.Wait()
	if v, _, err := o.get("k", load); err != nil || v != "row2" {
		t.Fatalf("after the change: %q %v, want row2 (loaded again)", v, err)
	}
	o.c.Wait()
	if v, _, _ := o.get("k", load); v != "row2" || loads != 2 {
		t.Fatalf("third get: %q after %d loads, want row2 from the cache", v, loads)
	}
}

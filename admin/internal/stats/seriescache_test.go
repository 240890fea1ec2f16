package stats

import (
	"testing"
	"time"

	"kurz/shared/click"
)

// TestSeriesCache: an entry serves only its own range under the parts it
// was read from, for seriesMaxAge at most; a range without sketches is not
// kept; a full cache sheds a quarter and keeps what was put last.
func TestSeriesCache(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := newSeriesCache()
	c.max = 8
	k := seriesKey{kind: click.KindLink, id: 42, table: "click_daily_uniques", bucket: "day", from: 1, till: 2}
	b := bucketed{by: map[int64]uint64{1: 3}, totals: []uint64{3}}
	c.put(k, "all_1_1_0", b, now)
	other := k
	other.till = 3
	tests := []struct {
		name  string
		k     seriesKey
		parts string
		at    time.Time
		ok    bool
	}{
		{"same parts", k, "all_1_1_0", now.Add(time.Minute), true},
		{"a new part", k, "all_1_1_0,all_2_2_0", now, false},
		{"another range", other, "all_1_1_0", now, false},
		{"too old", k, "all_1_1_0", now.Add(seriesMaxAge), false},
		{"no parts", k, "", now, false},
	}
	for _, tt := range tests {
		if _, ok := c.get(tt.k, tt.parts, tt.at); ok != tt.ok {
			t.Errorf("%s: ok %v, want %v", tt.name, ok, tt.ok)
		}
	}
	c.put(other, "", b, now)
	if len(c.entries) != 1 {
		t.Errorf("a range without sketches kept: %d entries", len(c.entries))
	}
	for i := range int64(20) {
		n := k
		n.id = 100 + i
		c.put(n, "p", b, now)
		if len(c.entries) > c.max {
			t.Fatalf("%d entries, at most %d", len(c.entries), c.max)
		}
		if _, ok := c.get(n, "p", now); !ok {
			t.Fatalf("the entry just put for %d is gone", n.id)
		}
	}
}

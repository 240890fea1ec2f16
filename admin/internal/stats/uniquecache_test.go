package stats

import (
	"fmt"
	"testing"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// TestUniqueCache: a count is served only under the key it was read with,
// per kind and id; a target without rows is not kept; a full cache sheds a
// quarter and keeps what was put last.
func TestUniqueCache(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := newUniqueCache()
	c.max = 8
	c.now = func() time.Time { return now }
	c.put(click.KindLink, 1, chstore.Keyed{Totals: chstore.Totals{Clicks: 7, UniqueClicks: 5}, Key: "all_1_1_0"})
	c.put(click.KindLink, 2, chstore.Keyed{})
	tests := []struct {
		kind click.Kind
		id   int64
		key  string
		want uint64
		ok   bool
	}{
		{click.KindLink, 1, "all_1_1_0", 5, true},
		{click.KindLink, 1, "all_1_1_0,all_2_2_0", 0, false}, // a new part
		{click.KindLink, 1, "all_1_2_1", 0, false},           // merged
		{click.KindQR, 1, "all_1_1_0", 0, false},             // another kind's id 1
		{click.KindLink, 2, "", 0, false},                    // never kept
	}
	for _, tt := range tests {
		if got, ok := c.get(tt.kind, tt.id, tt.key); got != tt.want || ok != tt.ok {
			t.Errorf("get(%v, %d, %q) = %d, %v; want %d, %v", tt.kind, tt.id, tt.key, got, ok, tt.want, tt.ok)
		}
	}
	if c.hits != 1 || c.misses != 4 {
		t.Errorf("hits %d, misses %d; want 1, 4", c.hits, c.misses)
	}
	now = now.Add(uniqueMaxAge)
	if _, ok := c.get(click.KindLink, 1, "all_1_1_0"); ok {
		t.Error("an entry older than uniqueMaxAge served")
	}
	keyed := func(id int64, key string) chstore.Keyed {
		return chstore.Keyed{Totals: chstore.Totals{Clicks: uint64(id), UniqueClicks: uint64(id)}, Key: key}
	}
	for id := int64(10); id < 30; id++ {
		c.put(click.KindLink, id, keyed(id, fmt.Sprint("k", id)))
		if len(c.entries) > c.max {
			t.Fatalf("%d entries after putting %d, at most %d", len(c.entries), id, c.max)
		}
		if got, ok := c.get(click.KindLink, id, fmt.Sprint("k", id)); !ok || got != uint64(id) {
			t.Fatalf("the entry just put for %d: %d, %v", id, got, ok)
		}
	}
	// Replacing a kept entry when full drops nothing.
	for id := int64(100); len(c.entries) < c.max; id++ {
		c.put(click.KindLink, id, keyed(id, "k"))
	}
	c.put(click.KindLink, 29, keyed(29, "k29b"))
	if got, ok := c.get(click.KindLink, 29, "k29b"); len(c.entries) != c.max || !ok || got != 29 {
		t.Errorf("replacing an entry of a full cache: %d entries, want %d; the new count %d, %v", len(c.entries), c.max, got, ok)
	}
}

package stats

import (
	"reflect"
	"testing"
	"time"

	"kurz/shared/click"
)

// TestRankCache: an entry serves the limits it covers while the owner's
// total is the one it was read at and it is younger than maxAge; the
// slices it hands out cannot write into it; the id budget evicts the
// least recently used entry.
func TestRankCache(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	r := Ranked{IDs: []int64{9, 8, 7}, Clicks: []int64{30, 20, 10}}
	fill := func() *rankCache {
		c := newRankCache()
		c.put(click.KindLink, 1, 60, 5, r, now) // 3 < 5: complete
		c.put(click.KindLink, 2, 60, 2, Ranked{IDs: []int64{9, 8}, Clicks: []int64{30, 20}}, now)
		return c
	}
	tests := []struct {
		name  string
		kind  click.Kind
		owner int64
		total uint64
		limit int
		at    time.Duration
		want  *Ranked
	}{
		{"complete, all", click.KindLink, 1, 60, 0, 0, &r},
		{"complete, longer limit", click.KindLink, 1, 60, 100, 0, &r},
		{"complete, prefix", click.KindLink, 1, 60, 2, 0, &Ranked{IDs: []int64{9, 8}, Clicks: []int64{30, 20}}},
		{"total changed", click.KindLink, 1, 61, 2, 0, nil},
		{"other kind", click.KindQR, 1, 60, 2, 0, nil},
		{"too old", click.KindLink, 1, 60, 2, rankMaxAge, nil},
		{"partial, within its limit", click.KindLink, 2, 60, 1, time.Second, &Ranked{IDs: []int64{9}, Clicks: []int64{30}}},
		{"partial, past its limit", click.KindLink, 2, 60, 3, 0, nil},
		{"partial, all", click.KindLink, 2, 60, 0, 0, nil},
		{"unknown owner", click.KindLink, 3, 0, 0, 0, nil},
	}
	for _, tt := range tests {
		got, ok := fill().get(tt.kind, tt.owner, tt.total, tt.limit, now.Add(tt.at))
		if ok != (tt.want != nil) || ok && !reflect.DeepEqual(got, *tt.want) {
			t.Errorf("%s: %v %v, want %v", tt.name, got, ok, tt.want)
		}
	}
	c := fill()
	got, _ := c.get(click.KindLink, 1, 60, 2, now)
	_ = append(got.IDs, 1) // must not overwrite the cached 7
	if again, _ := c.get(click.KindLink, 1, 60, 0, now); !reflect.DeepEqual(again, r) {
		t.Errorf("the cached ranking changed through a returned slice: %v", again)
	}

	small := newRankCache()
	small.maxIDs = 3*entryCost + 7
	small.put(click.KindLink, 1, 1, 0, r, now)
	small.put(click.KindLink, 2, 1, 0, r, now.Add(time.Second))
	small.put(click.KindLink, 4, 1, 0, Ranked{}, now) // empty: not kept
	// Owner 1 is now the most recently used; owner 3's 2 ids make 3+3+2 > 7.
	small.get(click.KindLink, 1, 1, 0, now.Add(2*time.Second))
	small.put(click.KindLink, 3, 1, 0, Ranked{IDs: []int64{1, 2}, Clicks: []int64{2, 1}}, now.Add(3*time.Second))
	if _, ok := small.get(click.KindLink, 2, 1, 0, now.Add(4*time.Second)); ok {
		t.Error("owner 2, least recently used, was kept past the id budget")
	}
	for _, owner := range []int64{1, 3} {
		if _, ok := small.get(click.KindLink, owner, 1, 0, now.Add(4*time.Second)); !ok {
			t.Errorf("owner %d was evicted", owner)
		}
	}
	if small.ids != 2*entryCost+5 || len(small.entries) != 2 {
		t.Errorf("ids %d in %d entries, want %d in 2", small.ids, len(small.entries), 2*entryCost+5)
	}
	// Expired entries go first, before any live one.
	small.put(click.KindLink, 5, 1, 0, r, now.Add(rankMaxAge+time.Second))
	if len(small.entries) != 2 || small.entries[rankKey{click.KindLink, 3}] == nil {
		t.Errorf("after owner 1 expired: %d entries, owner 3 kept: %v", len(small.entries), small.entries[rankKey{click.KindLink, 3}] != nil)
	}
	// An expired entry is dropped when it is looked up.
	small.get(click.KindLink, 5, 1, 0, now.Add(2*rankMaxAge+2*time.Second))
	if small.entries[rankKey{click.KindLink, 5}] != nil || small.ids != entryCost+2 {
		t.Errorf("owner 5's entry expired, yet it stays (ids %d)", small.ids)
	}
}

// TestRankCacheMoving follows Service.Ranking's use of the cache: an entry
// read because the owner's total had moved marks the owner as moving, and
// the next ranking is read at once, without the total; such a read that
// finds the total where the entry before left it clears the mark. An
// entry that only lacked the limit, or an expired one, marks nothing.
func TestRankCacheMoving(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	r := Ranked{IDs: []int64{9, 8, 7}, Clicks: []int64{30, 20, 10}}
	c := newRankCache()
	steps := []struct {
		name  string
		total uint64 // the owner's total at this read
		limit int
		at    time.Duration
		want  string // the path taken: "hit", "miss" (total read, then the ranking) or "direct"
	}{
		{"first read", 60, 2, 0, "miss"},
		{"same total, within the limit", 60, 2, time.Second, "hit"},
		{"same total, past the limit", 60, 5, 2 * time.Second, "miss"},
		{"same total again", 60, 5, 3 * time.Second, "hit"},
		{"a click", 61, 5, 4 * time.Second, "miss"},
		{"another click", 62, 5, 5 * time.Second, "direct"},
		{"no click since", 62, 5, 6 * time.Second, "direct"},
		{"still no click", 62, 5, 7 * time.Second, "hit"},
		{"a click", 63, 5, 8 * time.Second, "miss"},
		{"the next, after the entry expired", 64, 5, 8*time.Second + rankMaxAge, "miss"},
		{"a click after it", 65, 5, 9*time.Second + rankMaxAge, "miss"},
		{"and another", 66, 5, 10*time.Second + rankMaxAge, "direct"},
	}
	for _, st := range steps {
		at := now.Add(st.at)
		path := "direct"
		if !c.moving(click.KindLink, 1, at) {
			path = "miss"
			if _, ok := c.get(click.KindLink, 1, st.total, st.limit, at); ok {
				path = "hit"
			}
		}
		if path != "hit" {
			c.put(click.KindLink, 1, st.total, st.limit, r, at)
		}
		if path != st.want {
			t.Errorf("%s: %s, want %s", st.name, path, st.want)
		}
	}
	if c.direct != 3 {
		t.Errorf("%d direct reads counted, want 3", c.direct)
	}
	if c.moving(click.KindLink, 2, now) || c.moving(click.KindQR, 1, now) {
		t.Error("an owner without an entry is moving")
	}
}

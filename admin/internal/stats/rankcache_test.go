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
	c := newRankCache()
	c.put(click.KindLink, 1, 60, 5, r, now) // 3 < 5: complete
	c.put(click.KindLink, 2, 60, 2, Ranked{IDs: []int64{9, 8}, Clicks: []int64{30, 20}}, now)
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
		got, ok := c.get(tt.kind, tt.owner, tt.total, tt.limit, now.Add(tt.at))
		if ok != (tt.want != nil) || ok && !reflect.DeepEqual(got, *tt.want) {
			t.Errorf("%s: %v %v, want %v", tt.name, got, ok, tt.want)
		}
	}
	got, _ := c.get(click.KindLink, 1, 60, 2, now)
	_ = append(got.IDs, 1) // must not overwrite the cached 7
	if again, _ := c.get(click.KindLink, 1, 60, 0, now); !reflect.DeepEqual(again, r) {
		t.Errorf("the cached ranking changed through a returned slice: %v", again)
	}

	small := newRankCache()
	small.maxIDs = 7
	small.put(click.KindLink, 1, 1, 0, r, now)
	small.put(click.KindLink, 2, 1, 0, r, now.Add(time.Second))
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
	if small.ids != 5 {
		t.Errorf("ids %d, want 5", small.ids)
	}
}

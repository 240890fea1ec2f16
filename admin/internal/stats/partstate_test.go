package stats

import (
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"kurz/shared/chstore"
)

func tc(pairs ...int64) []chstore.TargetClicks {
	var out []chstore.TargetClicks
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, chstore.TargetClicks{ID: pairs[i], Clicks: pairs[i+1]})
	}
	return out
}

// TestPartStateUpdate: what the owner's rows in the parts not kept do
// to a state, each against the ranking of the parts as they then are.
func TestPartStateUpdate(t *testing.T) {
	kept := func() *partState {
		st, ok := newPartState(map[string][]chstore.TargetClicks{"all_1_1_0": tc(1, 5, 2, 3), "all_2_2_0": tc(2, 1)})
		if !ok {
			t.Fatal("state of readable names not kept")
		}
		return st
	}
	tests := []struct {
		name  string
		fresh map[string][]chstore.TargetClicks
		want  Ranked
		parts []string // kept afterwards
		ok    bool
	}{
		{"no part changed", nil, Ranked{IDs: []int64{1, 2}, Clicks: []int64{5, 4}}, []string{"all_1_1_0", "all_2_2_0"}, true},
		{"an insert", map[string][]chstore.TargetClicks{"all_3_3_0": tc(3, 9, 2, 1)},
			Ranked{IDs: []int64{3, 2, 1}, Clicks: []int64{9, 5, 5}}, []string{"all_1_1_0", "all_2_2_0", "all_3_3_0"}, true},
		{"a merge of the kept parts", map[string][]chstore.TargetClicks{"all_1_2_1": tc(1, 5, 2, 4)},
			Ranked{IDs: []int64{1, 2}, Clicks: []int64{5, 4}}, []string{"all_1_2_1"}, true},
		{"a merge that took an insert in", map[string][]chstore.TargetClicks{"all_2_4_1": tc(2, 2, 4, 6)},
			Ranked{IDs: []int64{4, 2, 1}, Clicks: []int64{6, 5, 5}}, []string{"all_1_1_0", "all_2_4_1"}, true},
		{"a mutation's rewrite", map[string][]chstore.TargetClicks{"all_1_1_0_7": tc(1, 4, 2, 3)},
			Ranked{IDs: []int64{2, 1}, Clicks: []int64{4, 4}}, []string{"all_1_1_0_7", "all_2_2_0"}, true},
		{"a link's clicks all moved out", map[string][]chstore.TargetClicks{"all_1_1_0_7": tc(2, 3)},
			Ranked{IDs: []int64{2}, Clicks: []int64{4}}, []string{"all_1_1_0_7", "all_2_2_0"}, true},
		{"blocks below the kept ones, taking none in", map[string][]chstore.TargetClicks{"all_0_0_0": tc(2, 1)}, Ranked{}, nil, false},
		{"two parts claim one", map[string][]chstore.TargetClicks{"all_1_2_1": tc(1, 5), "all_2_3_1": tc(2, 4)}, Ranked{}, nil, false},
		{"a name not read", map[string][]chstore.TargetClicks{"bad": tc(1, 1)}, Ranked{}, nil, false},
	}
	for _, tt := range tests {
		st := kept()
		before := st.ranked
		next, ok := st.update(tt.fresh)
		if ok != tt.ok {
			t.Errorf("%s: ok %v, want %v", tt.name, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		names := slices.Sorted(maps.Keys(next.parts))
		if !reflect.DeepEqual(next.ranked, tt.want) || !slices.Equal(names, tt.parts) {
			t.Errorf("%s: ranked %v, parts %v; want %v, %v", tt.name, next.ranked, names, tt.want, tt.parts)
		}
		if !reflect.DeepEqual(before, Ranked{IDs: []int64{1, 2}, Clicks: []int64{5, 4}}) {
			t.Errorf("%s: the ranking handed out before changed: %v", tt.name, before)
		}
		var pairs int
		for _, p := range next.parts {
			pairs += len(p.rows)
		}
		if next.pairs != pairs || next.maxBlock < st.maxBlock {
			t.Errorf("%s: pairs %d (rows %d), max block %d", tt.name, next.pairs, pairs, next.maxBlock)
		}
	}
	// Rows that were never counted cannot leave.
	st := kept()
	st.parts["all_1_1_0"].rows = tc(1, 50)
	if _, ok := st.update(map[string][]chstore.TargetClicks{"all_1_2_1": tc(2, 4)}); ok {
		t.Error("sums below zero accepted")
	}
}

// TestMoveRanked: moving changed targets in one pass gives the ranking a
// full sort of the new sums gives, for random changes of all sizes.
func TestMoveRanked(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 200 {
		clicks := map[int64]int64{}
		for range rng.IntN(300) {
			clicks[rng.Int64N(400)+1] = rng.Int64N(20) + 1
		}
		r := rankClicks(clicks)
		var changed []change
		for id := range int64(400) {
			if rng.IntN(10) != 0 {
				continue
			}
			was := clicks[id+1]
			now := max(0, was+rng.Int64N(9)-4)
			if now == was {
				continue
			}
			changed = append(changed, change{id: id + 1, was: was, now: now})
			if now == 0 {
				delete(clicks, id+1)
			} else {
				clicks[id+1] = now
			}
		}
		before := Ranked{IDs: slices.Clone(r.IDs), Clicks: slices.Clone(r.Clicks)}
		got, ok := moveRanked(r, changed)
		if want := rankClicks(clicks); !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: %d changes: %v %v, want %v", round, len(changed), ok, got, want)
		}
		if !reflect.DeepEqual(r, before) {
			t.Fatalf("round %d: the old ranking was written", round)
		}
	}
	if _, ok := moveRanked(Ranked{IDs: []int64{1}, Clicks: []int64{3}}, []change{{id: 1, was: 2, now: 4}}); ok {
		t.Error("a target not where its old sum puts it: accepted")
	}
}

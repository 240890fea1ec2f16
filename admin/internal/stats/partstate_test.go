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

// TestPartStatePlan: how a list of active parts maps onto kept ones.
func TestPartStatePlan(t *testing.T) {
	st, ok := newPartState(map[string][]chstore.TargetClicks{
		"all_1_1_0": tc(1, 5, 2, 3),
		"all_2_2_0": tc(2, 1),
		"all_3_3_0": tc(3, 2),
	})
	if !ok {
		t.Fatal("state of readable names not kept")
	}
	tests := []struct {
		name   string
		active []string
		want   partPlan
		ok     bool
	}{
		{"same", []string{"all_1_1_0", "all_2_2_0", "all_3_3_0"}, partPlan{same: true}, true},
		{"an insert", []string{"all_1_1_0", "all_2_2_0", "all_3_3_0", "all_4_4_0"}, partPlan{read: []string{"all_4_4_0"}}, true},
		{"a merge", []string{"all_1_2_1", "all_3_3_0"}, partPlan{merges: map[string][]string{"all_1_2_1": {"all_1_1_0", "all_2_2_0"}}}, true},
		{"a merge with an unseen insert", []string{"all_1_4_1"}, partPlan{merges: map[string][]string{"all_1_4_1": {"all_1_1_0", "all_2_2_0", "all_3_3_0"}}}, true},
		{"a mutation", []string{"all_1_1_0_9", "all_2_2_0", "all_3_3_0"}, partPlan{read: []string{"all_1_1_0_9"}, minus: []string{"all_1_1_0"}}, true},
		{"a part dropped", []string{"all_1_1_0", "all_3_3_0"}, partPlan{minus: []string{"all_2_2_0"}}, true},
		{"another partition", []string{"x_1_3_1", "all_1_1_0", "all_2_2_0"}, partPlan{read: []string{"x_1_3_1"}, minus: []string{"all_3_3_0"}}, true},
		{"two parts claim one", []string{"all_1_2_1", "all_2_3_1"}, partPlan{}, false},
		{"a name not read", []string{"all_1_1_0", "all_2_2_0", "all_3_3_0", "bad"}, partPlan{}, false},
	}
	for _, tt := range tests {
		u, ok := st.plan(tt.active)
		if ok != tt.ok {
			t.Errorf("%s: ok %v, want %v", tt.name, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		slices.Sort(u.minus)
		for _, took := range u.merges {
			slices.Sort(took)
		}
		if u.same != tt.want.same || !slices.Equal(u.read, tt.want.read) || !slices.Equal(u.minus, tt.want.minus) ||
			len(u.merges) != len(tt.want.merges) || len(u.merges) > 0 && !reflect.DeepEqual(u.merges, tt.want.merges) {
			t.Errorf("%s: plan same %v read %v merges %v minus %v; want %+v", tt.name, u.same, u.read, u.merges, u.minus, tt.want)
		}
	}
}

// TestPartStateApply: a merge whose sum is its parts' keeps the ranking
// without a read; one that took in more is read and its parts' rows
// leave; a part found empty and gone since is not kept.
func TestPartStateApply(t *testing.T) {
	st, _ := newPartState(map[string][]chstore.TargetClicks{"all_1_1_0": tc(1, 5, 2, 3), "all_2_2_0": tc(2, 1)})
	want := Ranked{IDs: []int64{1, 2}, Clicks: []int64{5, 4}}
	if !reflect.DeepEqual(st.ranked, want) {
		t.Fatalf("ranked %v, want %v", st.ranked, want)
	}

	u, _ := st.plan([]string{"all_1_2_1"})
	st.settle(&u, map[string]uint64{"all_1_2_1": 9})
	merged, ok := st.apply(u, nil)
	if !ok || !reflect.DeepEqual(merged.ranked, want) || merged.parts["all_1_2_1"].humans != 9 || len(merged.parts) != 1 {
		t.Fatalf("a merge of kept parts: %v %+v", ok, merged)
	}

	u, _ = merged.plan([]string{"all_1_3_2", "all_4_4_0"})
	merged.settle(&u, map[string]uint64{"all_1_3_2": 12}) // 3 more than kept: an insert merged in
	if !slices.Contains(u.read, "all_1_3_2") || !slices.Equal(u.minus, []string{"all_1_2_1"}) {
		t.Fatalf("a merge with more: read %v minus %v", u.read, u.minus)
	}
	u.unkept = map[string]bool{"all_4_4_0": true} // found empty, then gone
	next, ok := merged.apply(u, map[string][]chstore.TargetClicks{"all_1_3_2": tc(1, 5, 2, 4, 3, 3)})
	want = Ranked{IDs: []int64{1, 2, 3}, Clicks: []int64{5, 4, 3}}
	if !ok || !reflect.DeepEqual(next.ranked, want) {
		t.Fatalf("after reading the merge: %v %v, want %v", ok, next.ranked, want)
	}
	if next.parts["all_4_4_0"] != nil || next.parts["all_1_3_2"] == nil || len(next.parts) != 1 {
		t.Errorf("parts kept: %v", slices.Collect(maps.Keys(next.parts)))
	}
	if !reflect.DeepEqual(merged.ranked, Ranked{IDs: []int64{1, 2}, Clicks: []int64{5, 4}}) {
		t.Errorf("the ranking handed out before changed: %v", merged.ranked)
	}

	// Rows that were never counted cannot leave.
	u, _ = next.plan(nil)
	u.minus = append(u.minus, "all_1_3_2")
	if _, ok := next.apply(u, nil); ok {
		t.Error("subtracting a part twice accepted")
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

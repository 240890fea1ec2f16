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
// leave; a part read empty is kept empty.
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
	if rows := merged.parts["all_1_2_1"].rows; len(rows) != 2 || merged.pairs != 2 {
		t.Errorf("a merge's rows not summed per target: %v (%d kept)", rows, merged.pairs)
	}

	u, _ = merged.plan([]string{"all_1_3_2", "all_4_4_0"})
	merged.settle(&u, map[string]uint64{"all_1_3_2": 12}) // 3 more than kept: an insert merged in
	if !slices.Contains(u.read, "all_1_3_2") || !slices.Equal(u.minus, []string{"all_1_2_1"}) {
		t.Fatalf("a merge with more: read %v minus %v", u.read, u.minus)
	}
	next, ok := merged.apply(u, map[string][]chstore.TargetClicks{"all_1_3_2": tc(1, 5, 2, 4, 3, 3)})
	want = Ranked{IDs: []int64{1, 2, 3}, Clicks: []int64{5, 4, 3}}
	if !ok || !reflect.DeepEqual(next.ranked, want) {
		t.Fatalf("after reading the merge: %v %v, want %v", ok, next.ranked, want)
	}
	if next.parts["all_4_4_0"] == nil || len(next.parts["all_4_4_0"].rows) != 0 || next.parts["all_1_3_2"] == nil || len(next.parts) != 2 {
		t.Errorf("parts kept: %v", slices.Collect(maps.Keys(next.parts)))
	}
	if !reflect.DeepEqual(merged.ranked, Ranked{IDs: []int64{1, 2}, Clicks: []int64{5, 4}}) {
		t.Errorf("the ranking handed out before changed: %v", merged.ranked)
	}

	// Rows that were never counted cannot leave.
	u, _ = next.plan([]string{"all_9_9_0"}) // both kept parts dropped
	u.minus = append(u.minus, "all_1_3_2")
	if _, ok := next.apply(u, nil); ok {
		t.Error("subtracting a part twice accepted")
	}
	// Blocks numbered below the kept ones: the table was made anew.
	if _, ok := next.plan([]string{"all_1_1_0"}); ok {
		t.Error("a table made anew (lower block numbers) planned as an update")
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

// script is a partReads that answers from fixed lists, in turn, and
// records what was read.
type script struct {
	lists [][]string
	sums  map[string]uint64
	rows  map[string][]chstore.TargetClicks
	asked []string
}

func (s *script) reads() partReads {
	return partReads{
		active: func() ([]string, error) {
			l := s.lists[0]
			if len(s.lists) > 1 {
				s.lists = s.lists[1:]
			}
			return l, nil
		},
		sums: func(names []string) (map[string]uint64, error) {
			out := map[string]uint64{}
			for _, n := range names {
				s.asked = append(s.asked, "sum "+n)
				if v, ok := s.sums[n]; ok {
					out[n] = v
				}
			}
			return out, nil
		},
		rows: func(names []string) (map[string][]chstore.TargetClicks, error) {
			out := map[string][]chstore.TargetClicks{}
			for _, n := range names {
				s.asked = append(s.asked, "rows "+n)
				if v, ok := s.rows[n]; ok {
					out[n] = v
				}
			}
			return out, nil
		},
	}
}

// TestUpdateVanishing: a part the reads found nothing in is kept empty
// only if a later list still names it; one gone by then (merged away
// before the read) makes the update plan again from that list, so that
// no answer loses the rows it held or the rows of the parts it took in.
func TestUpdateVanishing(t *testing.T) {
	kept := func() *partState {
		st, _ := newPartState(map[string][]chstore.TargetClicks{"all_1_1_0": tc(1, 5, 2, 3), "all_2_2_0": tc(2, 1)})
		return st
	}

	// M took in both kept parts and an unseen insert, and was merged into
	// M2 (with one more insert) before its sum and rows were read.
	s := &script{
		lists: [][]string{{"all_1_3_1"}, {"all_1_4_2"}},
		sums:  map[string]uint64{"all_1_4_2": 14},
		rows:  map[string][]chstore.TargetClicks{"all_1_4_2": tc(1, 6, 2, 4, 3, 4)},
	}
	next, read, _, err := update(kept(), s.reads())
	want := Ranked{IDs: []int64{1, 3, 2}, Clicks: []int64{6, 4, 4}}
	if err != nil || next == nil || !reflect.DeepEqual(next.ranked, want) {
		t.Fatalf("after a merge gone before its read: %v, %v (asked %v), want %v", next, err, s.asked, want)
	}
	if read != 1 || len(next.parts) != 1 || next.parts["all_1_4_2"] == nil {
		t.Errorf("parts read %d, kept %v", read, slices.Collect(maps.Keys(next.parts)))
	}

	// Another owner's insert: read once, found empty, still listed: kept
	// empty, and the next list is the same parts.
	s = &script{lists: [][]string{{"all_1_1_0", "all_2_2_0", "all_3_3_0"}}}
	next, read, _, _ = update(kept(), s.reads())
	if next == nil || read != 1 || next.parts["all_3_3_0"] == nil || !reflect.DeepEqual(next.ranked, kept().ranked) {
		t.Fatalf("an empty part: %+v, read %d", next, read)
	}
	if _, _, hit, _ := update(next, s.reads()); hit != 1 {
		t.Errorf("the same parts again: not a hit")
	}

	// An empty kept part merged with an unseen insert into M, gone before
	// its sum was read: its missing sum (0) matches the empty part's, and
	// only the second list shows it gone; the plan from that list reads
	// the part that took M in.
	s = &script{
		lists: [][]string{{"all_1_1_0", "all_2_2_0", "all_3_4_1"}, {"all_1_1_0", "all_2_2_0", "all_3_5_2"}},
		sums:  map[string]uint64{"all_3_5_2": 3},
		rows:  map[string][]chstore.TargetClicks{"all_3_5_2": tc(5, 2, 6, 1)},
	}
	after, _, _, err := update(next, s.reads())
	want = Ranked{IDs: []int64{1, 2, 5, 6}, Clicks: []int64{5, 4, 2, 1}}
	if err != nil || after == nil || !reflect.DeepEqual(after.ranked, want) {
		t.Fatalf("an empty part's merge gone before its sum: %+v, %v (asked %v), want %v", after, err, s.asked, want)
	}

	// Parts that keep vanishing: after partTries lists, every row is read.
	s = &script{lists: [][]string{
		{"all_1_1_0", "all_2_2_0", "all_3_3_0"}, {"all_1_1_0", "all_2_2_0", "all_4_4_0"},
		{"all_1_1_0", "all_2_2_0", "all_5_5_0"}, {"all_1_1_0", "all_2_2_0", "all_6_6_0"},
	}}
	if next, _, _, err := update(kept(), s.reads()); next != nil || err != nil {
		t.Errorf("parts vanishing under every list: %+v, %v; want a read of every row", next, err)
	}
}

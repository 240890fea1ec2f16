package stats

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"kurz/shared/chstore"
)

// partState is an owner's ranking with the rows it was summed from, kept
// part by part (chstore/ownerparts.go): the active parts holding rows of
// the owner's as of the last read. It is what it takes to bring the
// ranking up to date from the owner's rows in the parts it does not keep.
// Only the goroutine holding its partEntry touches it; ranked is never
// written once built, so callers may keep it.
type partState struct {
	parts    map[string]*keptPart
	clicks   map[int64]int64 // the ranking's sums, by target
	ranked   Ranked
	pairs    int       // rows held by all parts
	maxBlock int64     // the highest block a kept part holds
	whole    time.Time // when every row was last read (partMaxAge)
}

// keptPart is the owner's rows of one part, one per target.
type keptPart struct {
	rng  chstore.PartRange
	rows []chstore.TargetClicks
}

// newPartState sums the owner's rows, read part by part, into a ranking
// that keeps them; ok is false when a part's name cannot be read (the
// rows are then summed, not kept).
func newPartState(rows map[string][]chstore.TargetClicks) (st *partState, ok bool) {
	st = &partState{parts: make(map[string]*keptPart, len(rows)), clicks: map[int64]int64{}}
	ok = true
	for name, rs := range rows {
		rng, good := chstore.ParsePartName(name)
		ok = ok && good
		for _, r := range rs {
			st.clicks[r.ID] += r.Clicks
		}
		st.parts[name] = &keptPart{rng: rng, rows: rs}
		st.pairs += len(rs)
		st.maxBlock = max(st.maxBlock, rng.Max)
	}
	st.ranked = rankClicks(st.clicks)
	return st, ok
}

// names is the kept parts' names: what a read of the parts since leaves out.
func (st *partState) names() []string {
	out := make([]string, 0, len(st.parts))
	for n := range st.parts {
		out = append(out, n)
	}
	return out
}

// update returns the state after fresh: the owner's rows, read in one
// snapshot, in every active part but the kept ones. Each is the part of an
// insert since (blocks above the kept ones) or a part that took kept
// parts in (a merge, or a mutation's rewrite: its range covers theirs),
// whose rows replace theirs. The kept parts that no fresh part covers are
// still active: a kept part's rows, all of them clicks, leave it only into
// a part that covers it and holds them, which the read returns. ok is
// false when only reading every row again is right: a name it cannot
// read, a kept part two fresh parts claim, a fresh part at or below the
// kept blocks that covers none of them (the table was made anew, or
// parts were dropped), or sums that would go below zero. st must not be
// used afterwards, whether ok or not (next takes over its sums).
func (st *partState) update(fresh map[string][]chstore.TargetClicks) (next *partState, ok bool) {
	if len(fresh) == 0 {
		return st, true
	}
	delta := map[int64]int64{}
	claimed := map[string]bool{}
	next = &partState{parts: make(map[string]*keptPart, len(st.parts)+len(fresh)), clicks: st.clicks, maxBlock: st.maxBlock, whole: st.whole}
	for name, rows := range fresh {
		rng, good := chstore.ParsePartName(name)
		if !good {
			return nil, false
		}
		took := 0
		for kn, kp := range st.parts {
			if !rng.Covers(kp.rng) {
				continue
			}
			if claimed[kn] {
				return nil, false
			}
			claimed[kn] = true
			took++
			for _, r := range kp.rows {
				delta[r.ID] -= r.Clicks
			}
		}
		if took == 0 && rng.Min <= st.maxBlock {
			return nil, false
		}
		for _, r := range rows {
			delta[r.ID] += r.Clicks
		}
		next.parts[name] = &keptPart{rng: rng, rows: rows}
	}
	for kn, kp := range st.parts {
		if !claimed[kn] {
			next.parts[kn] = kp
		}
	}
	for _, p := range next.parts {
		next.pairs += len(p.rows)
		next.maxBlock = max(next.maxBlock, p.rng.Max)
	}
	changed, ok := changes(st.clicks, delta)
	if !ok {
		return nil, false
	}
	if next.ranked, ok = moveRanked(st.ranked, changed); !ok {
		return nil, false
	}
	for _, c := range changed {
		if c.now == 0 {
			delete(next.clicks, c.id)
		} else {
			next.clicks[c.id] = c.now
		}
	}
	return next, true
}

// change is a target whose sum moved from was to now.
type change struct {
	id       int64
	was, now int64
}

// changes turns deltas into the targets' old and new sums; ok is false
// when a sum would go below zero (rows that were never counted).
func changes(clicks map[int64]int64, delta map[int64]int64) ([]change, bool) {
	var out []change
	for id, d := range delta {
		if d == 0 {
			continue
		}
		was := clicks[id]
		if was+d < 0 {
			return nil, false
		}
		out = append(out, change{id: id, was: was, now: was + d})
	}
	return out, true
}

// rankOrder is the ranking's order: more clicks first, ties higher id
// first (chstore.ReadRanking's).
func rankOrder(ca, ia, cb, ib int64) int {
	if c := cmp.Compare(cb, ca); c != 0 {
		return c
	}
	return cmp.Compare(ib, ia)
}

// rankClicks is the ranking of clicks' targets with any clicks.
func rankClicks(clicks map[int64]int64) Ranked {
	type pair struct{ id, n int64 }
	ps := make([]pair, 0, len(clicks))
	for id, n := range clicks {
		if n > 0 {
			ps = append(ps, pair{id, n})
		}
	}
	slices.SortFunc(ps, func(a, b pair) int { return rankOrder(a.n, a.id, b.n, b.id) })
	r := Ranked{IDs: make([]int64, len(ps)), Clicks: make([]int64, len(ps))}
	for i, p := range ps {
		r.IDs[i], r.Clicks[i] = p.id, p.n
	}
	if len(ps) == 0 {
		return Ranked{}
	}
	return r
}

// moveRanked returns a new ranking: r with each changed target moved from
// its old place to its new one (or out, at zero clicks). r is not
// written: callers may hold it. One pass over r, whatever the number of
// changes. ok is false when a target is not where its old sum puts it.
func moveRanked(r Ranked, changed []change) (Ranked, bool) {
	if len(changed) == 0 {
		return r, true
	}
	skip := make([]int, 0, len(changed))
	var in []change
	for _, c := range changed {
		if c.was > 0 {
			i := sort.Search(len(r.IDs), func(i int) bool { return rankOrder(r.Clicks[i], r.IDs[i], c.was, c.id) >= 0 })
			if i == len(r.IDs) || r.IDs[i] != c.id || r.Clicks[i] != c.was {
				return Ranked{}, false
			}
			skip = append(skip, i)
		}
		if c.now > 0 {
			in = append(in, c)
		}
	}
	slices.Sort(skip)
	slices.SortFunc(in, func(a, b change) int { return rankOrder(a.now, a.id, b.now, b.id) })
	n := len(r.IDs) - len(skip) + len(in)
	out := Ranked{IDs: make([]int64, 0, n), Clicks: make([]int64, 0, n)}
	for i := 0; i < len(r.IDs) || len(in) > 0; {
		if len(skip) > 0 && skip[0] == i {
			skip, i = skip[1:], i+1
			continue
		}
		if len(in) > 0 && (i == len(r.IDs) || rankOrder(in[0].now, in[0].id, r.Clicks[i], r.IDs[i]) < 0) {
			out.IDs, out.Clicks = append(out.IDs, in[0].id), append(out.Clicks, in[0].now)
			in = in[1:]
			continue
		}
		out.IDs, out.Clicks = append(out.IDs, r.IDs[i]), append(out.Clicks, r.Clicks[i])
		i++
	}
	if n == 0 {
		return Ranked{}, true
	}
	return out, true
}

package stats

import (
	"cmp"
	"slices"
	"sort"

	"kurz/shared/chstore"
)

// partState is an owner's ranking with the rows it was summed from, kept
// part by part (chstore/ownerparts.go): the parts holding rows of the
// owner's, and the table's other parts as they become known, empty. It is
// what it takes to bring the ranking up to date from a later list of the
// table's active parts. Only the goroutine holding its partEntry touches
// it; ranked is never written once built, so callers may keep it.
type partState struct {
	parts    map[string]*keptPart
	clicks   map[int64]int64 // the ranking's sums, by target
	ranked   Ranked
	pairs    int   // rows held by all parts
	maxBlock int64 // the highest block a kept part holds
}

// keptPart is the owner's rows of one part, one per target.
type keptPart struct {
	rng    chstore.PartRange
	humans uint64
	rows   []chstore.TargetClicks
}

// partPlan is how the table's active parts differ from a state's: the
// new parts whose rows must be read, the new parts that took in kept ones
// (a merge: their sum tells whether they hold anything else of the
// owner's), and the kept parts whose rows left.
type partPlan struct {
	active []string
	same   bool                // the parts are the ones kept
	read   []string            // new parts whose rows are unknown
	merges map[string][]string // new part -> the kept parts it took in
	minus  []string            // kept parts whose rows are in no new part counted as theirs
}

// newPartState sums the owner's rows, read part by part, into a ranking
// that keeps them; ok is false when a part's name cannot be read (the
// rows are then summed, not kept). The parts without rows of the owner's
// are not known yet: the next plan finds them new, and reads them once.
func newPartState(rows map[string][]chstore.TargetClicks) (st *partState, ok bool) {
	st = &partState{parts: make(map[string]*keptPart, len(rows)), clicks: map[int64]int64{}}
	ok = true
	for name, rs := range rows {
		rng, good := chstore.ParsePartName(name)
		ok = ok && good
		p := &keptPart{rng: rng, rows: rs}
		for _, r := range rs {
			p.humans += uint64(r.Clicks)
			st.clicks[r.ID] += r.Clicks
		}
		st.parts[name] = p
		st.pairs += len(rs)
		st.maxBlock = max(st.maxBlock, rng.Max)
	}
	st.ranked = rankClicks(st.clicks)
	return st, ok
}

// plan compares the table's active parts with the kept ones. ok is false
// when only reading every row again is right: a name it cannot read, a
// kept part that two new parts claim, or blocks numbered below the kept
// ones (the table was made anew: its names mean other rows).
func (st *partState) plan(active []string) (u partPlan, ok bool) {
	u = partPlan{active: active, merges: map[string][]string{}}
	now := make(map[string]bool, len(active))
	var top int64
	for _, n := range active {
		now[n] = true
		rng, good := chstore.ParsePartName(n)
		if !good {
			return partPlan{}, false
		}
		top = max(top, rng.Max)
	}
	if top < st.maxBlock {
		return partPlan{}, false
	}
	var gone []string
	for name := range st.parts {
		if !now[name] {
			gone = append(gone, name)
		}
	}
	claimed := map[string]bool{}
	fresh := 0
	for _, name := range active {
		if st.parts[name] != nil {
			continue
		}
		fresh++
		rng, _ := chstore.ParsePartName(name)
		var took []string
		for _, g := range gone {
			if rng.Covers(st.parts[g].rng) {
				if claimed[g] {
					return partPlan{}, false
				}
				claimed[g] = true
				took = append(took, g)
			}
		}
		// A mutation may change rows without changing their sum: read it,
		// also when a merge carried it (a version above its parts').
		if len(took) == 0 || len(took) == 1 && rng.Rewrites(st.parts[took[0]].rng) || mutatedIn(rng, st, took) {
			u.read = append(u.read, name)
			u.minus = append(u.minus, took...)
			continue
		}
		u.merges[name] = took
	}
	for _, g := range gone {
		if !claimed[g] {
			u.minus = append(u.minus, g) // dropped, not merged: its rows left
		}
	}
	u.same = fresh == 0 && len(gone) == 0
	return u, true
}

// mutatedIn reports whether a merge's version is above every part it took
// in: a mutation was applied to their rows on the way.
func mutatedIn(rng chstore.PartRange, st *partState, took []string) bool {
	if len(took) == 0 {
		return false
	}
	for _, t := range took {
		if st.parts[t].rng.Version >= rng.Version {
			return false
		}
	}
	return true
}

// settle decides each merge by the owner's sum in it (sums: as read; a
// part missing holds none of the owner's rows, or was gone when read). A
// merge holds the rows of the kept parts it took in, and nothing else of
// the owner's, exactly when its sum is theirs: counts only grow, so any
// other block of the owner's would add to it. The others join read, and
// the parts they took in join minus.
func (st *partState) settle(u *partPlan, sums map[string]uint64) {
	for name, took := range u.merges {
		var sum uint64
		for _, t := range took {
			sum += st.parts[t].humans
		}
		if sums[name] == sum {
			continue
		}
		delete(u.merges, name)
		u.read = append(u.read, name)
		u.minus = append(u.minus, took...)
	}
}

// unsure returns the new parts the reads found nothing of the owner's in
// (rows: of u.read; sums: of the merges): either they hold none, or they
// were gone by then.
func (u *partPlan) unsure(rows map[string][]chstore.TargetClicks, sums map[string]uint64) []string {
	var out []string
	for _, name := range u.read {
		if _, ok := rows[name]; !ok {
			out = append(out, name)
		}
	}
	for name := range u.merges {
		if _, ok := sums[name]; !ok {
			out = append(out, name)
		}
	}
	return out
}

// apply returns the state after u, with rows the owner's rows of u.read
// as read since (a part missing holds none: the caller has checked that
// the parts unsure names were still active after the reads). It takes
// over st's sums: st must not be used afterwards, whether ok or not.
func (st *partState) apply(u partPlan, rows map[string][]chstore.TargetClicks) (next *partState, ok bool) {
	delta := map[int64]int64{}
	next = &partState{parts: make(map[string]*keptPart, len(u.active)), clicks: st.clicks, maxBlock: st.maxBlock}
	for _, name := range u.read {
		p := &keptPart{rows: rows[name]}
		p.rng, _ = chstore.ParsePartName(name) // plan parsed it
		for _, r := range p.rows {
			p.humans += uint64(r.Clicks)
			delta[r.ID] += r.Clicks
		}
		next.parts[name] = p
	}
	for _, name := range u.minus {
		for _, r := range st.parts[name].rows {
			delta[r.ID] -= r.Clicks
		}
	}
	for name, took := range u.merges {
		p := &keptPart{}
		p.rng, _ = chstore.ParsePartName(name)
		p.humans, p.rows = mergeRows(st, took)
		next.parts[name] = p
	}
	for _, name := range u.active {
		if kept := st.parts[name]; kept != nil {
			next.parts[name] = kept
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

// mergeRows is the rows of the kept parts took, one per target: what the
// part that merged them holds of the owner's.
func mergeRows(st *partState, took []string) (humans uint64, rows []chstore.TargetClicks) {
	if len(took) == 1 {
		p := st.parts[took[0]]
		return p.humans, p.rows
	}
	at := map[int64]int{}
	for _, t := range took {
		p := st.parts[t]
		humans += p.humans
		for _, r := range p.rows {
			if i, ok := at[r.ID]; ok {
				rows[i].Clicks += r.Clicks
				continue
			}
			at[r.ID] = len(rows)
			rows = append(rows, r)
		}
	}
	return humans, rows
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

package stats

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// partRanks keeps owners' rankings with their rows part by part
// (partState), on a single ClickHouse server. Each page that needs an
// owner's ranking reads the owner's rows in every part but the kept ones
// (one read, ~2 ms): nothing means the same ranking; the parts of recent
// inserts are a few rows, whose clicks are moved into the ranking; a
// merge that took kept parts in replaces their rows with its own. While
// an owner's clicks keep coming that replaces reading the whole ranking
// after every insert (18-40 ms beside the insert's merges, the
// rankCache's way, which stays for clusters and for owners too large to
// keep here). Every answer is the ranking of one snapshot of the parts.
//
// Reads of one owner's ranking wait for each other (partEntry.turn): one
// brings the entry up to date, the others then find it so.
type partRanks struct {
	mu      sync.Mutex
	entries map[rankKey]*partEntry
	held    int // cost of all entries, at most max
	max     int
	full    int // every row read (for tests)
	parts   int // parts read for an update
	hits    int // reads that found no part changed
}

type partEntry struct {
	turn  chan struct{} // one slot: held while the entry is read and brought up to date
	state *partState
	// tooBig: the owner had more rows than kept here, as of then.
	tooBig time.Time
	// last, used and cost are the cache's (partRanks.mu): the ranking as
	// last brought up to date, for hints, when, for eviction, and what it
	// is charged.
	last Ranked
	used time.Time
	cost int
}

// partMaxHeld bounds all entries: a target costs ~3 units kept (its place
// in the ranking, its sum, its rows; ~100 bytes with the map), so 4M
// units is over 1M targets' worth, ~130 MB at most. An owner with more
// than rankMaxEntryIDs rows is ranked the rankCache's way, checked again
// after partTooBigFor. partMaxAge bounds how long a state is brought up
// to date before every row is read again: rows that leave a part without
// a part that takes them in (a dropped partition, a detached part, which
// kurz never does) are not seen otherwise.
const (
	partMaxHeld   = 1 << 22
	partEntryCost = 64
	partTooBigFor = time.Minute
	partMaxAge    = 10 * time.Minute
)

func newPartRanks() *partRanks {
	return &partRanks{entries: map[rankKey]*partEntry{}, max: partMaxHeld}
}

// ranking returns owner's ranking of kind, whole. ok is false, with no
// error, when the owner has too many rows to keep here.
func (c *partRanks) ranking(ctx context.Context, conn driver.Conn, kind click.Kind, owner int64) (r Ranked, ok bool, err error) {
	e := c.entry(kind, owner)
	select {
	case e.turn <- struct{}{}:
	case <-ctx.Done():
		return Ranked{}, false, chstore.Unavailable("wait for the owner's ranking", ctx.Err())
	}
	defer func() { <-e.turn }()
	if err := ctx.Err(); err != nil { // the wait may have ended with the request
		return Ranked{}, false, chstore.Unavailable("wait for the owner's ranking", err)
	}
	if time.Since(e.tooBig) < partTooBigFor {
		return Ranked{}, false, nil
	}
	var next *partState
	if st := e.state; st != nil && time.Since(st.whole) < partMaxAge {
		fresh, err := chstore.ReadOwnerPartRows(ctx, conn, kind, owner, st.names())
		if err != nil {
			return Ranked{}, false, err // the state is as it was
		}
		e.state = nil // taken over by update
		next, _ = st.update(fresh)
		if next != nil && len(fresh) == 0 {
			c.count(0, 0, 1)
		} else if next != nil {
			c.count(0, len(fresh), 0)
		}
	}
	if next == nil {
		n, err := chstore.ReadOwnerRows(ctx, conn, kind, owner)
		if err != nil {
			return Ranked{}, false, err
		}
		if n > rankMaxEntryIDs {
			return c.tooLarge(kind, owner, e)
		}
		start := time.Now()
		rows, err := chstore.ReadOwnerPartRows(ctx, conn, kind, owner, nil)
		if err != nil {
			return Ranked{}, false, err
		}
		c.count(1, 0, 0)
		var kept bool
		if next, kept = newPartState(rows); !kept {
			c.keep(kind, owner, e, nil, next.ranked) // ranked, not kept: the next read starts over
			return next.ranked, true, nil
		}
		next.whole = start
	}
	if next.pairs > rankMaxEntryIDs { // grown past the limit since its full read
		return c.tooLarge(kind, owner, e)
	}
	e.state = next
	c.keep(kind, owner, e, next, next.ranked)
	return next.ranked, true, nil
}

// tooLarge marks (kind, owner)'s entry e as holding too many rows to keep
// here, for partTooBigFor: its rankings are read the rankCache's way.
func (c *partRanks) tooLarge(kind click.Kind, owner int64, e *partEntry) (Ranked, bool, error) {
	e.state, e.tooBig = nil, time.Now()
	c.keep(kind, owner, e, nil, Ranked{}) // charged as empty, no hint
	return Ranked{}, false, nil
}

func (c *partRanks) count(full, parts, hits int) {
	c.mu.Lock()
	c.full, c.parts, c.hits = c.full+full, c.parts+parts, c.hits+hits
	c.mu.Unlock()
}

// entry returns (kind, owner)'s entry, made if missing.
func (c *partRanks) entry(kind click.Kind, owner int64) *partEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := rankKey{kind, owner}
	e := c.entries[k]
	if e == nil {
		e = &partEntry{turn: make(chan struct{}, 1), used: time.Now()}
		c.entries[k] = e
	}
	return e
}

// keep records r as e's latest ranking, with st (nil: nothing kept part by
// part), charges their cost and evicts the least recently used entries
// beyond the budget.
func (c *partRanks) keep(kind click.Kind, owner int64, e *partEntry, st *partState, r Ranked) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// An entry evicted while it was read comes back: it is the newest
	// (and replaces one made for the owner meanwhile).
	k := rankKey{kind, owner}
	if other := c.entries[k]; other != nil && other != e {
		c.held -= other.cost
		other.cost = 0
	}
	c.entries[k] = e
	c.held -= e.cost
	e.last, e.used = r, time.Now()
	e.cost = partEntryCost + len(r.IDs)
	if st != nil {
		e.cost += len(st.clicks) + st.pairs
	}
	c.held += e.cost
	if c.held <= c.max {
		return
	}
	keys := slices.Collect(maps.Keys(c.entries))
	slices.SortFunc(keys, func(a, b rankKey) int { return c.entries[a].used.Compare(c.entries[b].used) })
	for _, k := range keys {
		if c.held <= c.max {
			return
		}
		old := c.entries[k]
		c.held -= old.cost
		old.cost = 0
		delete(c.entries, k)
	}
}

// last returns the ids at from..to of (kind, owner)'s ranking as last
// brought up to date, or nil.
func (c *partRanks) last(kind click.Kind, owner int64, from, to int) []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[rankKey{kind, owner}]
	if e == nil || from < 0 || to <= from || from >= len(e.last.IDs) {
		return nil
	}
	return slices.Clone(e.last.IDs[from:min(to, len(e.last.IDs))])
}

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
// owner's ranking lists the parts holding the owner's rows (4-6 ms for a
// 100k-link owner): the same parts as kept are the same ranking; new
// parts of recent inserts are read (a few rows each) and their clicks
// moved into the ranking; a merge of kept parts is recognised by its
// name and its sum, and read only when it took in rows never seen. While
// an owner's clicks keep coming that replaces reading the whole ranking
// after every insert (18-40 ms beside the insert's merges, the rankCache's
// way, which stays for clusters and for owners too large to keep here).
// Every answer is exact: the kept rows are those of the listed parts.
//
// Reads of one owner's ranking wait for each other (partEntry.mu): one
// brings the entry up to date, the others then find it so.
type partRanks struct {
	mu      sync.Mutex
	entries map[rankKey]*partEntry
	held    int // cost of all entries, at most max
	max     int
	full    int // every row read (for tests)
	parts   int // parts read for an update
	hits    int // lists that found the kept parts
}

type partEntry struct {
	mu    sync.Mutex // held while the entry is read and brought up to date
	state *partState
	// last and used are the cache's (partRanks.mu): the ranking as last
	// brought up to date, for hints, and when, for eviction.
	last Ranked
	used time.Time
	cost int
}

// partMaxHeld bounds all entries: a target costs ~4 units kept (its place
// in the ranking, its sum, its rows; ~100 bytes with the maps), so 4M
// units is ~1M targets' worth, ~100 MB. An owner with more than
// rankMaxEntryIDs rows is ranked the rankCache's way.
const (
	partMaxHeld    = 1 << 22
	partEntryCost  = 64
	partRowsFactor = 2 // rows kept beyond this many per target: read anew
)

func newPartRanks() *partRanks {
	return &partRanks{entries: map[rankKey]*partEntry{}, max: partMaxHeld}
}

// ranking returns owner's ranking of kind, whole. ok is false, with no
// error, when the owner has too many rows to keep here.
func (c *partRanks) ranking(ctx context.Context, conn driver.Conn, kind click.Kind, owner int64) (r Ranked, ok bool, err error) {
	e := c.entry(kind, owner)
	e.mu.Lock()
	defer e.mu.Unlock()
	var next *partState
	if e.state != nil {
		if next, err = c.update(ctx, conn, kind, owner, e.state); err != nil {
			return Ranked{}, false, err
		}
	}
	if next == nil {
		rows, err := chstore.ReadOwnerRows(ctx, conn, kind, owner)
		if err != nil {
			return Ranked{}, false, err
		}
		if rows > rankMaxEntryIDs {
			c.drop(kind, owner, e)
			return Ranked{}, false, nil
		}
		if next, err = c.readAll(ctx, conn, kind, owner); err != nil {
			return Ranked{}, false, err
		}
	}
	e.state = next
	if next.pairs > partRowsFactor*len(next.clicks)+partEntryCost {
		e.state = nil // rows of many merges kept: the next read starts over
	}
	c.keep(kind, owner, e, next)
	return next.ranked, true, nil
}

// update brings st up to the table's active parts; nil, with no error,
// when only reading every row again will do.
func (c *partRanks) update(ctx context.Context, conn driver.Conn, kind click.Kind, owner int64, st *partState) (*partState, error) {
	active, err := chstore.ReadActiveParts(ctx, conn)
	if err != nil {
		return nil, err
	}
	u, ok := st.plan(active)
	if !ok {
		return nil, nil
	}
	if u.same {
		c.count(&c.hits, 1)
		return st, nil
	}
	var sums map[string]uint64
	if len(u.merges) > 0 {
		if sums, err = chstore.ReadOwnerPartSums(ctx, conn, kind, owner, slices.Collect(maps.Keys(u.merges))); err != nil {
			return nil, err
		}
		st.settle(&u, sums)
	}
	var rows map[string][]chstore.TargetClicks
	if len(u.read) > 0 {
		if rows, err = chstore.ReadOwnerPartRows(ctx, conn, kind, owner, u.read); err != nil {
			return nil, err
		}
	}
	if unsure := u.unsure(rows, sums); len(unsure) > 0 {
		// Active after the reads means present during them: found empty
		// because it holds nothing of the owner's.
		later, err := chstore.ReadActiveParts(ctx, conn)
		if err != nil {
			return nil, err
		}
		u.unkept = map[string]bool{}
		for _, name := range unsure {
			u.unkept[name] = !slices.Contains(later, name)
		}
	}
	next, ok := st.apply(u, rows)
	if !ok {
		return nil, nil
	}
	c.count(&c.parts, len(u.read))
	return next, nil
}

// readAll reads every row of the owner's into a new state.
func (c *partRanks) readAll(ctx context.Context, conn driver.Conn, kind click.Kind, owner int64) (*partState, error) {
	rows, err := chstore.ReadOwnerPartRows(ctx, conn, kind, owner, nil)
	if err != nil {
		return nil, err
	}
	c.count(&c.full, 1)
	next, ok := newPartState(rows)
	if !ok {
		// Ranked, but not kept part by part: the next read starts over.
		next.parts, next.pairs = nil, partRowsFactor*len(next.clicks)+partEntryCost+1
	}
	return next, nil
}

func (c *partRanks) count(n *int, by int) {
	c.mu.Lock()
	*n += by
	c.mu.Unlock()
}

// entry returns (kind, owner)'s entry, made if missing.
func (c *partRanks) entry(kind click.Kind, owner int64) *partEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := rankKey{kind, owner}
	e := c.entries[k]
	if e == nil {
		e = &partEntry{}
		c.entries[k] = e
	}
	e.used = time.Now()
	return e
}

// keep records st as e's latest ranking and charges its cost, evicting the
// least recently used entries beyond the budget.
func (c *partRanks) keep(kind click.Kind, owner int64, e *partEntry, st *partState) {
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
	e.last = st.ranked
	e.cost = partEntryCost + len(st.ranked.IDs) + len(st.clicks) + st.pairs
	c.held += e.cost
	if c.held <= c.max {
		return
	}
	var keys []rankKey
	for k := range c.entries {
		keys = append(keys, k)
	}
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

// drop forgets (kind, owner)'s entry e.
func (c *partRanks) drop(kind click.Kind, owner int64, e *partEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.state = nil
	if c.entries[rankKey{kind, owner}] == e {
		c.held -= e.cost
		e.cost = 0
		delete(c.entries, rankKey{kind, owner})
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

package catalog

import (
	"context"
	"slices"
	"sync"
)

// keySet is an exact set of 64-bit key hashes, kept for answering "no
// such key" without a query. It must be complete to say no, so it knows
// whether it is current:
//
//   - not ready: never built, or stale (the change listener lost its
//     session, so changes may have been missed). Lookups say "unknown".
//   - building: a build (a scan of every key) runs. Changes are recorded
//     in a journal and replayed over the scan's result: a change notified
//     after the scan began may or may not be in its snapshot, and
//     replaying it in order makes either case right (each change states
//     the key's new presence, so the last one wins).
//   - ready: lookups answer; changes apply directly.
//
// Memory: the scan's result is a sorted []uint64 (8 bytes per key, no
// per-entry overhead), searched by bisection; changes since the build go
// to two small maps (added keys; base keys removed), merged into a new
// sorted base once they hold an eighth of it. A hash map of a million
// uint64 costs 14–20 bytes per key, a set per key string far more.
//
// Two distinct keys with the same 64-bit hash (about n²/2⁶⁵: 3·10⁻⁸ at a
// million keys) share an entry, and deleting one would hide the other
// until the next build; the hash is keyed per process (existence.go), so
// such a pair cannot be chosen from outside.
type keySet struct {
	mu      sync.RWMutex
	ready   bool
	base    []uint64            // sorted, unique
	added   map[uint64]struct{} // present, not in base
	removed map[uint64]struct{} // in base, absent

	gen      uint64 // generation of the current build; a newer begin supersedes it
	building bool
	journal  []keyOp
	overflow bool // the journal hit maxJournal: the build must scan again
	cancel   context.CancelFunc
}

// keyOp is one change: the key's presence after it.
type keyOp struct {
	h   uint64
	add bool
}

const (
	// maxJournal bounds the changes kept during one build (16 MiB); past
	// it the build scans again rather than growing without bound.
	maxJournal = 1 << 20
	// minCompact: changes held in the maps before a merge is considered.
	minCompact = 4096
)

// lookup reports whether h is present; known is false while the set is not
// ready.
func (s *keySet) lookup(h uint64) (present, known bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.ready {
		return false, false
	}
	return s.has(h), true
}

func (s *keySet) has(h uint64) bool {
	if _, ok := s.added[h]; ok {
		return true
	}
	if _, ok := slices.BinarySearch(s.base, h); !ok {
		return false
	}
	_, gone := s.removed[h]
	return !gone
}

// set records a change: h now present (add) or absent.
func (s *keySet) set(h uint64, add bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.building && len(s.journal) >= maxJournal:
		s.overflow = true
	case s.building:
		s.journal = append(s.journal, keyOp{h, add})
	case s.ready:
		s.apply(h, add)
		s.compact()
	}
}

func (s *keySet) apply(h uint64, add bool) {
	_, inBase := slices.BinarySearch(s.base, h)
	switch {
	case add && inBase:
		delete(s.removed, h)
	case add:
		s.added[h] = struct{}{}
	case inBase:
		s.removed[h] = struct{}{}
	default:
		delete(s.added, h)
	}
}

// compact merges the change maps into a new base once they are large.
func (s *keySet) compact() {
	n := len(s.added) + len(s.removed)
	if n < minCompact || n < len(s.base)/8 {
		return
	}
	add := make([]uint64, 0, len(s.added))
	for h := range s.added {
		add = append(add, h)
	}
	slices.Sort(add)
	base := make([]uint64, 0, len(s.base)-len(s.removed)+len(add))
	i := 0
	for _, h := range s.base {
		for i < len(add) && add[i] < h {
			base = append(base, add[i])
			i++
		}
		if _, gone := s.removed[h]; !gone {
			base = append(base, h)
		}
	}
	base = append(base, add[i:]...)
	s.base, s.added, s.removed = base, map[uint64]struct{}{}, map[uint64]struct{}{}
}

// begin starts a build: the set stops answering, its memory is released
// (a rebuild never holds two bases), and a build running already is
// cancelled. It returns the build's context and generation.
func (s *keySet) begin(parent context.Context) (context.Context, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stop()
	s.gen++
	s.building = true
	ctx, cancel := context.WithCancel(parent)
	s.cancel = cancel
	return ctx, s.gen
}

// attempt marks the start of one scan of build gen: changes from now on
// are journaled for it. It reports false when the build was superseded.
func (s *keySet) attempt(gen uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.building || s.gen != gen {
		return false
	}
	s.journal, s.overflow = nil, false
	return true
}

// finish installs the sorted, unique hashes scanned by build gen and
// replays the journal over them. again is true when the journal
// overflowed and the build must scan again.
func (s *keySet) finish(gen uint64, hashes []uint64) (again bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.building || s.gen != gen {
		return false // superseded or stopped
	}
	if s.overflow {
		return true
	}
	s.base, s.added, s.removed = hashes, map[uint64]struct{}{}, map[uint64]struct{}{}
	for _, op := range s.journal {
		s.apply(op.h, op.add)
	}
	s.journal, s.building, s.ready = nil, false, true
	s.compact()
	return false
}

// invalidate makes the set stale until the next build.
func (s *keySet) invalidate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stop()
}

// stop cancels a running build and forgets everything; s.mu is held.
func (s *keySet) stop() {
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	s.ready, s.building, s.overflow = false, false, false
	s.base, s.added, s.removed, s.journal = nil, nil, nil, nil
}

// stats returns the keys held and the bytes they cost (for logs and the
// memory test): 8 per base entry, ~16 per map entry.
func (s *keySet) stats() (keys int, bytes int64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys = len(s.base) - len(s.removed) + len(s.added)
	return keys, int64(8*cap(s.base) + 16*(len(s.added)+len(s.removed)))
}

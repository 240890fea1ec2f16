package pgstore

import "context"

// Matches is the ids of the links a search selects, read beside the click
// ranking (PrefetchMatches): a page of a search by clicks first waits for
// ClickHouse's ranking (20-30 ms for 100k links) and then walked it
// through PostgreSQL, whose reads of a sparse search's matches (~5-10 ms)
// need nothing of the ranking. With the matches read meanwhile the walk
// checks the ranked ids in memory.
type Matches struct {
	done   chan struct{}
	cancel context.CancelFunc
	f      linkFilter     // the filter they were read for
	ids    map[int64]bool // every match; nil: more than prefetchMatchMax, or a search without keys
	err    error
}

// prefetchMatchMax bounds what a prefetch reads. A dense search's walk
// finds its page in the first slice of the ranking and would never read
// its matches (walkRanking), so what a prefetch reads for it is wasted;
// the bound keeps that waste to a few thousand ids. A sparse search with
// more matches than this is walked as before.
const prefetchMatchMax = 5000

// PrefetchMatches starts reading the ids of the links q's search selects
// (with its campaign and channel), for a page by clicks to pass in
// LinkQuery.Matches. nil when q has no search. The caller must Stop it.
func (s *Store) PrefetchMatches(ctx context.Context, q LinkQuery) *Matches {
	if q.Search == "" {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	m := &Matches{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(m.done)
		f, err := s.filter(ctx, q)
		m.f = f
		if err != nil || !f.keyed {
			m.err = err
			return
		}
		m.ids, m.err = s.matchingIDs(ctx, f, prefetchMatchMax)
	}()
	return m
}

// wait returns every match of f, or nil when they were not all read (or
// were read for another filter).
func (m *Matches) wait(f linkFilter) (map[int64]bool, error) {
	if m == nil {
		return nil, nil
	}
	<-m.done
	if m.f != f {
		return nil, nil
	}
	return m.ids, m.err
}

// Stop ends the read if it still runs and waits for it.
func (m *Matches) Stop() {
	if m == nil {
		return
	}
	m.cancel()
	<-m.done
}

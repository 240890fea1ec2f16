package dashboard

import (
	"context"

	"kurz/admin/internal/stats"
	"kurz/shared/link"
)

// totalsAhead reads the numbers of the links a table page sorted by clicks
// will most likely show, beside the reads that decide which links it
// shows. While an owner's clicks keep coming every such page reads the
// ranking anew (20-30 ms for 100k links on 18.16) and only then the page's
// numbers (10-20 ms: the top links' distinct-visitor sketches are the
// densest); the ranking read last time names the same links at the same
// places but for the few a click moved, so their numbers can be read at
// once. The page takes the numbers read ahead for the links they cover
// and reads the rest after the page is known, as it did all of them before.
type totalsAhead struct {
	done   chan struct{}
	cancel context.CancelFunc
	totals map[int64]stats.Totals // every id read, zero when nobody visited it (chstore.ReadTotals)
	up     bool
	err    error
}

// readAhead starts reading the numbers of ids; nil when there are none.
// The caller must stop it.
func (s *Server) readAhead(ctx context.Context, ids []int64) *totalsAhead {
	if len(ids) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	a := &totalsAhead{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(a.done)
		a.totals, a.up, a.err = s.api.LinkTotalsOf(ctx, ids, true)
	}()
	return a
}

// cover waits for the read and splits links into those whose numbers it
// holds and the ids still to read: the links it did not read, and those
// whose clicks it read are fewer than the ranking the page was ordered by
// counted (ranked: the ranking's clicks by id; a read ahead may predate
// the ranking's). ok is false when the read failed or covers none of links.
func (a *totalsAhead) cover(links []link.Link, ranked map[int64]int64) (totals map[int64]stats.Totals, missing []int64, ok bool) {
	if a == nil || len(links) == 0 {
		return nil, nil, false
	}
	<-a.done
	if a.err != nil || !a.up {
		return nil, nil, false
	}
	for i := range links {
		id := links[i].ID
		if t, read := a.totals[id]; !read || t.Clicks < uint64(max(0, ranked[id])) {
			missing = append(missing, id)
		}
	}
	if len(missing) == len(links) {
		return nil, nil, false
	}
	return a.totals, missing, true
}

// stop ends the read if it still runs and waits for it, so that no read
// outlives its request.
func (a *totalsAhead) stop() {
	if a == nil {
		return
	}
	a.cancel()
	<-a.done
}

package catalog

import (
	"context"
	"fmt"
	"sync/atomic"

	"kurz/shared/link"
)

// ErrBusy is a load the catalog refused because too many were running or
// waiting: the request gets a quick 503 (Retry-After: 1) instead of
// queueing behind a flood. It wraps ErrUnavailable.
var ErrBusy = fmt.Errorf("%w: too many database loads waiting", link.ErrUnavailable)

// loadGate bounds the database loads of misses (links, campaigns, QR
// codes) that run at once, and how many may wait for a turn; past that a
// load fails at once with ErrBusy. Whatever still reaches the database
// after the existence sets (existence.go) cannot pile up goroutines
// waiting for connections until their timeout while real links starve:
// the excess is refused in microseconds. Loads of one key share one
// turn (singleflight runs before the gate).
type loadGate struct {
	turns   chan struct{} // one token per running load
	limit   int64         // running + waiting
	inside  atomic.Int64  // running + waiting now
	refused atomic.Int64  // loads refused (tests, logs)
}

// newLoadGate returns a gate of running loads at once and waiting more;
// running < 0 means unbounded (nil gate).
func newLoadGate(running, waiting int) *loadGate {
	if running < 0 {
		return nil
	}
	return &loadGate{turns: make(chan struct{}, running), limit: int64(running + max(waiting, 0))}
}

// enter takes a turn, waiting while ctx allows when every turn is taken
// and the queue has room. On nil error the caller must call leave.
func (g *loadGate) enter(ctx context.Context) error {
	if g == nil {
		return nil
	}
	if g.inside.Add(1) > g.limit {
		g.inside.Add(-1)
		g.refused.Add(1)
		return ErrBusy
	}
	select {
	case g.turns <- struct{}{}:
		return nil
	case <-ctx.Done():
		g.inside.Add(-1)
		g.refused.Add(1)
		return ErrBusy
	}
}

// leave gives the turn back.
func (g *loadGate) leave() {
	if g == nil {
		return
	}
	<-g.turns
	g.inside.Add(-1)
}

// LoadsRefused counts the loads refused with ErrBusy since start.
func (c *Catalog) LoadsRefused() int64 {
	if c.cfg.gate == nil {
		return 0
	}
	return c.cfg.gate.refused.Load()
}

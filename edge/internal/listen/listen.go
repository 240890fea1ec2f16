// Package listen keeps the edge's catalog in step with PostgreSQL: it
// holds a LISTEN session open (shared/pgstore reads the notices), hands
// each change to the handler, and reconnects with backoff when the
// session fails. Notices sent while no session was open are lost, so
// after every (re)connect the handler is told to resync: drop everything.
package listen

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"kurz/shared/pgstore"
)

// Handler applies changes. Resync runs after each successful LISTEN,
// before any change received on that session; Apply runs per change;
// Lost runs when a session ends or fails to open (changes may go unseen
// until the next Resync). All run on the listener's goroutine.
type Handler interface {
	Apply(ctx context.Context, c pgstore.Change)
	Resync(ctx context.Context)
	Lost()
}

// Source opens LISTEN sessions (*pgstore.Store).
type Source interface {
	Listen(ctx context.Context) (*pgstore.Notices, error)
}

// Timing of the loop: failed connects back off from 50 ms up to
// MaxBackoff (a longer backoff would only lengthen the window of missed
// changes). A wait without notices pings the server after
// pgstore.NoticePing, so a half-open socket is found within seconds.
const (
	MaxBackoff     = time.Second
	connectTimeout = 3 * time.Second
)

// ProbeEvery spaces the lag probes of a session (pgstore.Notices.Probe).
const ProbeEvery = 5 * time.Second

// Listener owns the LISTEN session.
type Listener struct {
	src      Source
	h        Handler
	log      *slog.Logger
	up       atomic.Bool
	connects atomic.Int64
	changes  atomic.Uint64
	// current is the current (or last) session, for its lag probes.
	current atomic.Pointer[pgstore.Notices]
}

// Stats is the listener's state for /metrics.
type Stats struct {
	Up bool
	// Reconnects counts LISTENs after the first: sessions that ended and
	// were opened again.
	Reconnects int64
	Changes    uint64 // change notices applied
	// Lag is the notification lag (pgstore.Notices.Lag) of the current
	// session, or the last one; Probes the probes it received.
	Lag    time.Duration
	Probes uint64
}

// Stats returns the listener's state.
func (l *Listener) Stats() Stats {
	st := Stats{Up: l.up.Load(), Reconnects: max(l.connects.Load()-1, 0), Changes: l.changes.Load()}
	if n := l.current.Load(); n != nil {
		st.Lag, st.Probes = n.Lag()
	}
	return st
}

// New returns a listener opening its sessions from src.
func New(src Source, h Handler, log *slog.Logger) *Listener {
	return &Listener{src: src, h: h, log: log}
}

// Up reports whether the LISTEN session is established and the resync
// that follows each connect has run.
func (l *Listener) Up() bool { return l.up.Load() }

// Connects counts successful LISTENs (the first included).
func (l *Listener) Connects() int64 { return l.connects.Load() }

// Run listens until ctx ends, reconnecting as needed. It returns ctx's error.
func (l *Listener) Run(ctx context.Context) error {
	backoff := 50 * time.Millisecond
	for {
		err := l.session(ctx)
		l.up.Store(false)
		l.h.Lost()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			backoff = 50 * time.Millisecond
		}
		l.log.Warn("change listener disconnected; reconnecting", "err", err, "backoff", backoff)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		backoff = min(2*backoff, MaxBackoff)
	}
}

// session connects, LISTENs, resyncs and applies changes until the
// session fails. It returns nil when it had been up (so the next attempt
// starts with a short backoff).
func (l *Listener) session(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	notices, err := l.src.Listen(cctx)
	cancel()
	if err != nil {
		return err
	}
	defer notices.Close(context.WithoutCancel(ctx))
	l.current.Store(notices)
	pctx, stopProbes := context.WithCancel(ctx)
	defer stopProbes()
	go l.probe(pctx, notices)
	// Listening first, resyncing second: a change committed in between is
	// both seen by the resync and delivered as a notice. Up turns true
	// only after the resync, so whoever waits for it (the cache warm-up)
	// starts after the listener's Clear, not before.
	l.h.Resync(ctx)
	l.connects.Add(1)
	l.up.Store(true)
	for {
		c, err := notices.Next(ctx)
		switch {
		case err == nil:
			l.h.Apply(ctx, c)
			l.changes.Add(1)
		case ctx.Err() != nil:
			return nil
		default:
			l.log.Warn("change listener lost its connection", "err", err)
			return nil
		}
	}
}

// probe sends a lag probe every ProbeEvery until ctx ends (the session's
// end). A probe that cannot be sent shows as growing lag; the session's
// own reader finds out whether the connection is gone.
func (l *Listener) probe(ctx context.Context, n *pgstore.Notices) {
	t := time.NewTicker(ProbeEvery)
	defer t.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, ProbeEvery)
		err := n.Probe(pctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			l.log.Debug("change listener: lag probe not sent", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

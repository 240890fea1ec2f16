// Package listen keeps the edge's caches in step with PostgreSQL: a
// dedicated connection LISTENs on kurz_changes (the triggers of migration
// 0003 notify every write the edge caches) and hands each change to the
// edge. Notifications sent while the connection was down are lost, so
// after every (re)connect the edge is told to resync: drop everything.
package listen

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Channel is the notification channel of migration 0003.
const Channel = "kurz_changes"

// Change is one notification payload (see 0003_notify.sql).
type Change struct {
	Table    string `json:"t"`
	Op       string `json:"op"`
	ID       int64  `json:"id"`
	Host     string `json:"host"`
	Alias    string `json:"alias"`
	OldHost  string `json:"old_host"`
	OldAlias string `json:"old_alias"`
	Code     string `json:"code"`
}

// Handler applies changes. Resync runs after each successful LISTEN,
// before any change received on that connection; Apply runs per change.
// Both run on the listener's goroutine.
type Handler interface {
	Apply(ctx context.Context, c Change)
	Resync(ctx context.Context)
}

// Timing of the loop: a wait longer than PingEvery without a notification
// pings the server, so a half-open socket is found within seconds; failed
// connects back off from 50 ms up to MaxBackoff (a longer backoff would
// only lengthen the window of missed changes).
const (
	PingEvery      = 5 * time.Second
	MaxBackoff     = time.Second
	connectTimeout = 3 * time.Second
)

// Listener owns the LISTEN connection.
type Listener struct {
	cfg      *pgx.ConnConfig
	h        Handler
	log      *slog.Logger
	up       atomic.Bool
	connects atomic.Int64
}

// New returns a listener connecting with cfg (a copy is kept).
func New(cfg *pgx.ConnConfig, h Handler, log *slog.Logger) *Listener {
	return &Listener{cfg: cfg.Copy(), h: h, log: log}
}

// Up reports whether the LISTEN connection is established and the resync
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
// connection fails. It returns nil when it had been up (so the next
// attempt starts with a short backoff).
func (l *Listener) session(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	conn, err := pgx.ConnectConfig(cctx, l.cfg)
	cancel()
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	cctx, cancel = context.WithTimeout(ctx, connectTimeout)
	_, err = conn.Exec(cctx, "LISTEN "+Channel)
	cancel()
	if err != nil {
		return err
	}
	// Listening first, resyncing second: a change committed in between is
	// both seen by the resync and delivered as a notification. Up turns
	// true only after the resync, so whoever waits for it (the cache
	// warm-up) starts after the listener's Clear, not before.
	l.h.Resync(ctx)
	l.connects.Add(1)
	l.up.Store(true)
	for {
		wctx, cancel := context.WithTimeout(ctx, PingEvery)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			var c Change
			if err := json.Unmarshal([]byte(n.Payload), &c); err != nil {
				l.log.Warn("bad change payload; resyncing", "payload", n.Payload, "err", err)
				l.h.Resync(ctx)
				continue
			}
			l.h.Apply(ctx, c)
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed():
			pctx, cancel := context.WithTimeout(ctx, connectTimeout)
			err := conn.Ping(pctx)
			cancel()
			if err != nil {
				return nil
			}
		default:
			l.log.Warn("change listener lost its connection", "err", err)
			return nil
		}
	}
}

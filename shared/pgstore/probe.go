package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"
)

// Lag probes: how long a committed write takes to reach the session's
// reader. Each session also listens on a channel of its own; Probe sends a
// notice there through the pool, like any committed write, carrying the
// time it was sent, and Next records the delay when the reader gets to it
// (after every notice queued before it: a reader stuck applying changes
// shows as lag). The probe channel is unique per session, so probes of
// other processes never reach it and change notices stay untouched.

type probes struct {
	channel     string
	lastNS      atomic.Int64 // lag of the last probe received
	outstanding atomic.Int64 // send time (Unix ns) of the oldest probe not yet received; 0: none
	received    atomic.Uint64
}

func newProbeChannel() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("probe channel: %w", err)
	}
	return "kurz_probe_" + hex.EncodeToString(b[:]), nil
}

// Probe sends one lag probe. Safe to call while another goroutine waits
// in Next.
func (n *Notices) Probe(ctx context.Context) error {
	now := time.Now().UnixNano()
	n.probe.outstanding.CompareAndSwap(0, now)
	if _, err := n.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, n.probe.channel, strconv.FormatInt(now, 10)); err != nil {
		return fmt.Errorf("lag probe: %w", mapErr(err))
	}
	return nil
}

// received records a probe notice's lag.
func (p *probes) receivedAt(payload string, now time.Time) {
	sent, err := strconv.ParseInt(payload, 10, 64)
	if err != nil {
		return
	}
	p.lastNS.Store(max(now.UnixNano()-sent, 0))
	p.received.Add(1)
	// Probes arrive in order: this one answers every probe sent up to it.
	if o := p.outstanding.Load(); o != 0 && o <= sent {
		p.outstanding.CompareAndSwap(o, 0)
	}
}

// Lag is the notification lag as of now: the delay of the last probe
// received, or the age of the oldest probe still on its way when that is
// longer. Probes counts the probes received.
func (n *Notices) Lag() (lag time.Duration, probes uint64) {
	lag = time.Duration(n.probe.lastNS.Load())
	if o := n.probe.outstanding.Load(); o != 0 {
		lag = max(lag, time.Duration(time.Now().UnixNano()-o))
	}
	return lag, n.probe.received.Load()
}

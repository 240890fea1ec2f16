package catalog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// A read replica (KURZ_DATABASE_READ_URL) takes the loads of misses and
// the warm-up; the primary keeps everything else the catalog reads: the
// existence sets' key scans (a set that missed a key would answer 404
// for it until the next resync), the domains and the keys a notice names.
//
// A replica lags. Two rules keep its lag from showing:
//
//   - Not found on the replica is asked again on the primary, which
//     answers: a link created a moment ago resolves at once. Any other
//     replica error falls back the same way.
//   - A load reads the replica only if the replica has replayed every
//     change its key saw. Each cache's versions record when (clock) a key
//     was last invalidated; a probe (every probeInterval) records up to
//     when the replica has caught up: it reads the primary's WAL position
//     at time t, and once the replica's replay position reaches it, every
//     change committed before t is on the replica. A notice arrives after
//     its commit, so a key invalidated before t reads the same on both.
//     Keys changed since, and everything after a resync, go to the
//     primary until the replica catches up; a replica that stops
//     answering the probe gets no loads.

// probeInterval is how often the replica's replay position is checked:
// the delay after a change before its key's loads return to the replica.
const probeInterval = 100 * time.Millisecond

// probeTimeout bounds one probe's queries.
const probeTimeout = 2 * time.Second

// maxPending bounds the primary positions waiting for the replica to
// reach them; the oldest are dropped (the later ones are stricter).
const maxPending = 64

// walSource reads a server's WAL position: the primary's current one, a
// standby's replayed one (*pgstore.Store implements it).
type walSource interface {
	WALPosition(ctx context.Context) (uint64, error)
}

// reads routes the catalog's loads between the primary and the replica.
type reads struct {
	primary Source
	replica Source // nil: every load reads the primary
	log     *slog.Logger

	caughtUp atomic.Int64 // clock time before which every commit is on the replica
	up       atomic.Bool  // the replica answered the last probe

	replicaLoads, fallbacks atomic.Int64

	stop context.CancelFunc
	wg   sync.WaitGroup
}

// newReads routes loads to replica when it is not nil, and starts its
// probe; close stops it.
func newReads(primary, replica Source, log *slog.Logger) (*reads, error) {
	r := &reads{primary: primary, log: log, stop: func() {}}
	if replica == nil {
		return r, nil
	}
	pw, ok1 := primary.(walSource)
	rw, ok2 := replica.(walSource)
	if !ok1 || !ok2 {
		return nil, errors.New("catalog: a replica needs sources that report their WAL position")
	}
	r.replica = replica
	ctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	r.wg.Go(func() { r.probe(ctx, pw, rw) })
	return r, nil
}

func (r *reads) close() {
	r.stop()
	r.wg.Wait()
}

// source returns where a load of a key last invalidated at changed (clock)
// reads first.
func (r *reads) source(changed int64) Source {
	if r.replica != nil && r.up.Load() && changed < r.caughtUp.Load() {
		return r.replica
	}
	return r.primary
}

// read runs fn on the source for a key last invalidated at changed; when
// that is the replica and it fails or finds nothing, on the primary.
func read[T any](r *reads, changed int64, fn func(Source) (T, error)) (T, error) {
	src := r.source(changed)
	v, err := fn(src)
	if src == r.primary {
		return v, err
	}
	r.replicaLoads.Add(1)
	if err == nil {
		return v, nil
	}
	r.fallbacks.Add(1)
	return fn(r.primary)
}

// pendingPos is a primary WAL position and when it was read.
type pendingPos struct {
	at  int64
	pos uint64
}

// probe advances caughtUp until ctx ends.
func (r *reads) probe(ctx context.Context, primary, replica walSource) {
	t := time.NewTicker(probeInterval)
	defer t.Stop()
	var pending []pendingPos
	warned := false
	for {
		var err error
		pending, err = r.probeOnce(ctx, primary, replica, pending)
		r.up.Store(err == nil)
		switch {
		case err != nil && !warned && ctx.Err() == nil:
			r.log.Warn("read replica not answering; loads read the primary", "err", err)
			warned = true
		case err == nil && warned:
			r.log.Info("read replica answering again")
			warned = false
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// probeOnce reads the primary's position, then the replica's replayed
// one, and moves caughtUp to the latest pending position it reached.
func (r *reads) probeOnce(ctx context.Context, primary, replica walSource, pending []pendingPos) ([]pendingPos, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	at := clock() // before the query: every commit before at is at or below pos
	pos, err := primary.WALPosition(ctx)
	if err != nil {
		return pending, fmt.Errorf("primary wal position: %w", err)
	}
	if len(pending) == maxPending {
		pending = append(pending[:0], pending[1:]...)
	}
	pending = append(pending, pendingPos{at: at, pos: pos})
	replayed, err := replica.WALPosition(ctx)
	if err != nil {
		return pending, fmt.Errorf("replica wal position: %w", err)
	}
	n := 0
	for n < len(pending) && pending[n].pos <= replayed {
		raise(&r.caughtUp, pending[n].at)
		n++
	}
	return append(pending[:0], pending[n:]...), nil
}

// ReplicaStats counts the loads that read the replica, and those of them
// that the primary answered after all (not found or failed on the
// replica).
type ReplicaStats struct {
	ReplicaLoads, Fallbacks int64
}

// ReplicaStats returns the counts of loads that read the replica.
func (c *Catalog) ReplicaStats() ReplicaStats {
	return ReplicaStats{ReplicaLoads: c.reads.replicaLoads.Load(), Fallbacks: c.reads.fallbacks.Load()}
}

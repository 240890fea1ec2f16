package clicks

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
	"kurz/shared/obs"
)

// Pipeline moves Hits from the request path into ClickHouse. Create it
// with New, feed it with TryPush, stop it with Close.
type Pipeline struct {
	cfg   Config
	conn  driver.Conn
	enr   *click.Enricher
	log   *slog.Logger
	spool *spool

	queue    chan click.Hit
	overflow chan click.Hit

	closed   atomic.Bool
	inflight atomic.Int64 // TryPush calls between their closed check and their send
	down     atomic.Bool  // ClickHouse failed; batches go straight to the spool until the replayer reaches it
	wake     chan struct{}

	// stop is closed once intake has stopped: workers and spooler drain and
	// exit, replayer and heartbeat exit after their current round.
	stop      chan struct{}
	abort     context.CancelFunc // cancels in-flight ClickHouse calls (Close's ctx ended)
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error

	workers []*worker
	m       metrics
}

// New starts a pipeline: its workers, the spooler, the replayer (which
// first replays what a previous run left in Config.SpoolDir) and the
// heartbeat. It fails when the spool directory cannot be used or is locked
// by another process; ClickHouse being down is not an error.
func New(cfg Config) (*Pipeline, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	sp, err := openSpool(c.SpoolDir, c.SpoolMaxBytes, c.QuarantineMaxAge, c.Logger)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{
		cfg:      c,
		conn:     c.Conn,
		enr:      c.Enricher,
		log:      c.Logger,
		spool:    sp,
		queue:    make(chan click.Hit, c.QueueSize),
		overflow: make(chan click.Hit, c.OverflowSize),
		wake:     make(chan struct{}, 1),
		m:        metrics{insertSeconds: obs.NewHistogram()},
		stop:     make(chan struct{}),
	}
	if segs, rows, bytes, _ := sp.pending(); segs > 0 {
		p.log.Info("click spool from a previous run will be replayed", "dir", c.SpoolDir, "segments", segs, "rows", rows, "bytes", bytes)
	}
	// ctx lives as long as the pipeline; it is passed to the goroutines,
	// never stored, and cancelled only to abandon ClickHouse calls.
	ctx, abort := context.WithCancel(context.Background())
	p.abort = abort
	for i := range c.Workers {
		w := newWorker(c.BatchSize)
		p.workers = append(p.workers, w)
		p.wg.Add(2)
		// Staggered flush ticks: workers that insert at the same moment
		// make ClickHouse write two sets of parts at once.
		go p.fill(w, time.Duration(i)*c.FlushInterval/time.Duration(c.Workers))
		go p.send(ctx, w)
	}
	p.wg.Add(3)
	go p.spoolOverflow()
	go p.replay(ctx)
	go p.heartbeat(ctx)
	return p, nil
}

// TryPush hands h to the pipeline without blocking and without allocating;
// h is copied, so the caller may reuse it at once. It reports false when
// the hit was not taken: after Close, for an invalid Kind or Class, or when
// the queue, the overflow buffer and the spool are all full (counted as
// dropped).
func (p *Pipeline) TryPush(h *click.Hit) bool {
	p.inflight.Add(1)
	defer p.inflight.Add(-1)
	if p.closed.Load() {
		return false
	}
	if !h.Kind.Valid() || !h.Class.Valid() {
		p.m.rejected.Add(1)
		return false
	}
	select {
	case p.queue <- *h:
		return true
	default:
	}
	select {
	case p.overflow <- *h:
		p.m.overflowed.Add(1)
		return true
	default:
	}
	p.m.dropped.Add(1)
	return false
}

// Close stops intake (TryPush returns false from now on), drains the queue
// and the overflow buffer into ClickHouse or the spool, lets the replayer
// finish the segment it is sending, seals and fsyncs the spool and
// releases its lock. When ctx ends first, ClickHouse calls still in flight
// are abandoned and their rows spooled instead; nothing is lost unless the
// spool is full. It returns an error if clicks were dropped while draining.
func (p *Pipeline) Close(ctx context.Context) error {
	p.closeOnce.Do(func() { p.closeErr = p.close(ctx) })
	return p.closeErr
}

func (p *Pipeline) close(ctx context.Context) error {
	start := time.Now()
	p.closed.Store(true)
	// A TryPush that saw closed == false may still be sending; wait for it so
	// that the drain below sees its hit.
	for p.inflight.Load() != 0 {
		time.Sleep(10 * time.Microsecond)
	}
	// From here on only the drain can drop (spool full or unwritable).
	droppedBefore := p.m.dropped.Load()
	stopAbort := context.AfterFunc(ctx, p.abort)
	defer stopAbort()
	close(p.stop)
	p.wg.Wait()
	p.abort()
	p.spool.close()
	segs, rows, _, _ := p.spool.pending()
	p.log.Info("click pipeline closed", "took", time.Since(start).Round(time.Millisecond),
		"inserted", p.m.inserted.Load(), "spooled_segments", segs, "spooled_rows", rows)
	if lost := p.m.dropped.Load() - droppedBefore; lost > 0 {
		return fmt.Errorf("close click pipeline: %d clicks dropped while draining (spool full or unwritable)", lost)
	}
	return nil
}

// markDown records that ClickHouse failed, so that workers spool instead
// of waiting on it and the replayer starts probing.
func (p *Pipeline) markDown(err error) {
	if p.down.CompareAndSwap(false, true) {
		p.log.Warn("clickhouse unavailable: spooling clicks to disk", "dir", p.cfg.SpoolDir, "err", err)
	}
	p.poke()
}

// markUp records that ClickHouse takes inserts again (the replayer saw a
// replay succeed, or a ping with nothing to replay).
func (p *Pipeline) markUp() {
	if p.down.CompareAndSwap(true, false) {
		segs, rows, _, _ := p.spool.pending()
		p.log.Info("clickhouse takes inserts again: live batches resume", "spooled_segments", segs, "spooled_rows", rows)
	}
}

// poke wakes the replayer.
func (p *Pipeline) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

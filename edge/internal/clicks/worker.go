package clicks

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// worker is one enrich-and-insert goroutine's state. Its slices are reused
// from batch to batch.
type worker struct {
	rows     []click.Row
	blk      click.Block
	spoolBuf []byte
	// oldest is a lower bound of the capture time of the rows this worker
	// holds or that wait in the queue behind them (0: none); held counts
	// its rows. Both feed the ingest watermark.
	oldest atomic.Int64
	held   atomic.Int64
}

// newWorker starts with room for 4096 rows; rows grows with the traffic
// (a flush interval's worth, at most the batch size) instead of holding a
// full batch (50k rows, 7 MB) from the start.
func newWorker(batchSize int) *worker {
	return &worker{rows: make([]click.Row, 0, min(batchSize, 4096))}
}

// errSkipped stands for "ClickHouse is down, the batch was not attempted".
var errSkipped = errors.New("clickhouse marked down")

func (p *Pipeline) work(ctx context.Context, w *worker, offset time.Duration) {
	defer p.wg.Done()
	tick := time.NewTicker(p.cfg.FlushInterval)
	defer tick.Stop()
	if offset > 0 {
		tick.Reset(offset) // first tick after offset, then every FlushInterval
	}
	first := offset > 0
	for {
		select {
		case h := <-p.queue:
			p.take(ctx, w, &h)
			p.drain(ctx, w)
			// The queue is empty now. Pausing lets the next hits pile up so
			// they are taken in one go: without it, every request wakes this
			// goroutine for a single hit, a goroutine switch per request
			// that cost the edge 10–20% of its requests per CPU-second at
			// GOMAXPROCS=1 (edge/PERFORMANCE.md). Clicks wait up to
			// drainPause longer, against a flush interval of a second.
			time.Sleep(drainPause)
		case <-tick.C:
			if first {
				tick.Reset(p.cfg.FlushInterval)
				first = false
			}
			p.flush(ctx, w)
		case <-p.stop:
			// Intake has stopped: whatever is queued now is all there is.
			for {
				select {
				case h := <-p.queue:
					p.take(ctx, w, &h)
				default:
					p.flush(ctx, w)
					return
				}
			}
		}
	}
}

// drainPause is how long a worker rests after emptying the queue.
const drainPause = 2 * time.Millisecond

// drain takes every hit already queued, without blocking.
func (p *Pipeline) drain(ctx context.Context, w *worker) {
	for {
		select {
		case h := <-p.queue:
			p.take(ctx, w, &h)
		default:
			return
		}
	}
}

func (p *Pipeline) take(ctx context.Context, w *worker, h *click.Hit) {
	w.rows = append(w.rows, p.enr.Enrich(h))
	w.held.Store(int64(len(w.rows)))
	if w.oldest.Load() == 0 {
		w.oldest.Store(h.UnixNano)
	}
	if len(w.rows) >= p.cfg.BatchSize {
		p.flush(ctx, w)
	}
}

// flush sends the worker's batch to ClickHouse, or to the spool when
// ClickHouse is down or refuses it.
func (p *Pipeline) flush(ctx context.Context, w *worker) {
	if len(w.rows) == 0 {
		if len(p.queue) == 0 {
			w.oldest.Store(0)
		}
		return
	}
	err := errSkipped
	if !p.down.Load() {
		err = p.insert(ctx, &w.blk, w.rows)
	}
	switch {
	case err == nil:
		p.m.inserted.Add(uint64(len(w.rows)))
		p.m.lastInsertLag.Store(int64(time.Since(time.Unix(0, w.rows[0].UnixNano))))
	default:
		if err != errSkipped {
			p.markDown(err)
		}
		w.spoolBuf = p.spoolRows(w.rows, errors.Is(err, chstore.ErrSendFailed), w.spoolBuf)
	}
	newest := w.rows[len(w.rows)-1].UnixNano
	w.rows = w.rows[:0]
	w.held.Store(0)
	// Hits still queued were captured after the newest row sent.
	if len(p.queue) > 0 {
		w.oldest.Store(newest)
	} else {
		w.oldest.Store(0)
	}
}

// insert sends rows as one INSERT in chunks (see chstore.Chunking), bounded
// by Config.InsertTimeout. Live and replayed batches both pass here, and
// are counted and timed here.
func (p *Pipeline) insert(ctx context.Context, blk *click.Block, rows []click.Row) error {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.InsertTimeout)
	defer cancel()
	start := time.Now()
	err := chstore.InsertRows(ctx, p.conn, blk, rows, chstore.Chunking{Rows: p.cfg.ChunkRows, Pause: p.cfg.ChunkPause})
	p.m.insertSeconds.Observe(time.Since(start))
	if err != nil {
		p.m.insertFailures.Add(1)
		return err
	}
	p.m.batches.Add(1)
	return nil
}

// spoolRows writes a batch ClickHouse did not take to the spool; rows it
// cannot write are counted as dropped. It returns buf for reuse.
func (p *Pipeline) spoolRows(rows []click.Row, checkFirst bool, buf []byte) []byte {
	buf, err := p.spool.writeBatch(rows, checkFirst, buf)
	n := uint64(len(rows))
	switch {
	case err == nil:
		p.m.spooled.Add(n)
		p.poke()
	case errors.Is(err, errSpoolFull):
		p.m.dropped.Add(n)
		p.m.spoolFull.Add(n)
	default:
		p.m.dropped.Add(n)
		p.log.Error("click spool: batch lost", "rows", n, "err", err)
	}
	return buf
}

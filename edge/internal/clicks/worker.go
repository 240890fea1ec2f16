package clicks

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// worker is one enrich-and-insert pair of goroutines: the filler drains the
// queue into rows, and hands a batch to the sender at each flush interval;
// the sender inserts it (or spools it) while the filler goes on draining.
// Without the hand-off the queue stood still for the whole insert, and an
// insert's time is mostly ClickHouse running the materialized views (0.5 s
// for 45k rows here), so the larger, cheaper inserts (Config.BatchSize)
// would have sent hits through the overflow buffer to the disk spool.
type worker struct {
	rows    []click.Row // the batch being filled (filler's)
	spare   []click.Row // the emptied buffer of the last batch sent (filler's; nil while sending)
	sending bool        // a batch is with the sender (filler's)
	due     bool        // the interval ended while sending: hand off once it is back (filler's)

	out  chan []click.Row // filler → sender
	back chan []click.Row // sender → filler: the sent batch, emptied, for reuse

	blk      click.Block // sender's
	spoolBuf []byte      // sender's

	// oldest is a lower bound of the capture time of the rows being filled
	// or that wait in the queue behind them (0: none), held counts them;
	// sendOldest and sendHeld are the same for the batch with the sender.
	// All feed the ingest watermark.
	oldest, held         atomic.Int64
	sendOldest, sendHeld atomic.Int64
}

// newWorker starts with room for 4096 rows per buffer; they grow with the
// traffic (a flush interval's worth, at most the batch size) instead of
// holding two full batches from the start.
func newWorker(batchSize int) *worker {
	n := min(batchSize, 4096)
	return &worker{
		rows:  make([]click.Row, 0, n),
		spare: make([]click.Row, 0, n),
		out:   make(chan []click.Row),
		back:  make(chan []click.Row, 1),
	}
}

// errSkipped stands for "ClickHouse is down, the batch was not attempted".
var errSkipped = errors.New("clickhouse marked down")

// fill is the filler goroutine.
func (p *Pipeline) fill(w *worker, offset time.Duration) {
	defer p.wg.Done()
	defer close(w.out)
	tick := time.NewTicker(p.cfg.FlushInterval)
	defer tick.Stop()
	if offset > 0 {
		tick.Reset(offset) // first tick after offset, then every FlushInterval
	}
	first := offset > 0
	for {
		select {
		case h := <-p.queue:
			p.take(w, &h)
			p.drain(w)
			// The queue is empty now. Pausing lets the next hits pile up so
			// they are taken in one go: without it, every request wakes this
			// goroutine for a single hit, a goroutine switch per request
			// that cost the edge 10–20% of its requests per CPU-second at
			// GOMAXPROCS=1 (edge/PERFORMANCE.md). Clicks wait up to
			// drainPause longer, against a flush interval of seconds.
			time.Sleep(drainPause)
		case <-tick.C:
			if first {
				tick.Reset(p.cfg.FlushInterval)
				first = false
			}
			p.handOff(w, false)
		case rows := <-w.back:
			w.spare, w.sending = rows, false
			if w.due {
				p.handOff(w, false)
			}
		case <-p.stop:
			// Intake has stopped: whatever is queued now is all there is.
			for {
				select {
				case h := <-p.queue:
					p.take(w, &h)
				default:
					p.handOff(w, true)
					return
				}
			}
		}
	}
}

// drainPause is how long a worker rests after emptying the queue.
const drainPause = 2 * time.Millisecond

// drain takes every hit already queued, without blocking.
func (p *Pipeline) drain(w *worker) {
	for {
		select {
		case h := <-p.queue:
			p.take(w, &h)
		default:
			return
		}
	}
}

func (p *Pipeline) take(w *worker, h *click.Hit) {
	if n := len(w.rows); n == cap(w.rows) {
		// Doubling, but never past the batch size: append grows by 1.25×
		// past 256 elements and rounds up, so a 200k-row batch ended in a
		// buffer of 219,728 rows after ~17 copies.
		grown := make([]click.Row, n, max(1, min(2*n, p.cfg.BatchSize)))
		copy(grown, w.rows)
		w.rows = grown
	}
	w.rows = append(w.rows, p.enr.Enrich(h))
	w.held.Store(int64(len(w.rows)))
	if w.oldest.Load() == 0 {
		w.oldest.Store(h.UnixNano)
	}
	if len(w.rows) >= p.cfg.BatchSize {
		// A full batch waits for the one being sent: ClickHouse is slower
		// than the traffic, and the queue backs up into the spool.
		p.handOff(w, true)
	}
}

// handOff gives the batch being filled to the sender. While the sender
// still has the previous batch, it marks the hand-off due (wait false) or
// waits for the sender (wait true).
func (p *Pipeline) handOff(w *worker, wait bool) {
	if len(w.rows) == 0 {
		w.due = false
		if len(p.queue) == 0 {
			w.oldest.Store(0)
		}
		return
	}
	if w.sending {
		if !wait {
			w.due = true
			return
		}
		w.spare, w.sending = <-w.back, false
	}
	batch := w.rows
	w.sendOldest.Store(batch[0].UnixNano)
	w.sendHeld.Store(int64(len(batch)))
	w.rows, w.spare = w.spare[:0], nil
	w.held.Store(0)
	// Hits still queued were captured after the newest row handed off.
	if len(p.queue) > 0 {
		w.oldest.Store(batch[len(batch)-1].UnixNano)
	} else {
		w.oldest.Store(0)
	}
	w.sending, w.due = true, false
	w.out <- batch
}

// send is the sender goroutine: it inserts each batch the filler hands
// over, or spools it, and gives the buffer back. It ends when the filler
// closes w.out.
func (p *Pipeline) send(ctx context.Context, w *worker) {
	defer p.wg.Done()
	for rows := range w.out {
		p.flush(ctx, w, rows)
		w.sendOldest.Store(0)
		w.sendHeld.Store(0)
		w.back <- rows[:0]
	}
}

// flush sends one batch to ClickHouse, or to the spool when ClickHouse is
// down or refuses it.
func (p *Pipeline) flush(ctx context.Context, w *worker, rows []click.Row) {
	err := errSkipped
	if !p.down.Load() {
		err = p.insert(ctx, &w.blk, rows)
	}
	switch {
	case err == nil:
		p.m.inserted.Add(uint64(len(rows)))
		p.m.lastInsertLag.Store(int64(time.Since(time.Unix(0, rows[0].UnixNano))))
	default:
		if err != errSkipped {
			p.markDown(err)
		}
		w.spoolBuf = p.spoolRows(rows, errors.Is(err, chstore.ErrSendFailed), w.spoolBuf)
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

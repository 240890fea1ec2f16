package clicks

import (
	"context"
	"fmt"
	"time"
)

const insertHeartbeat = "INSERT INTO ingest_heartbeats (writer, at, watermark, lag_ms, pending)"

// heartbeat writes this pipeline's ingest watermark to ClickHouse once per
// flush interval, so that the stats API can say how fresh its numbers are
// (migrations/clickhouse/0005_ingest_heartbeats.sql).
func (p *Pipeline) heartbeat(ctx context.Context) {
	defer p.wg.Done()
	t := time.NewTicker(max(p.cfg.FlushInterval, 100*time.Millisecond))
	defer t.Stop()
	failing := false
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		if p.down.Load() {
			continue // nothing reaches ClickHouse now; the last heartbeat ages
		}
		err := p.writeHeartbeat(ctx)
		if (err != nil) != failing {
			failing = err != nil
			if failing {
				p.log.Warn("click pipeline: heartbeat not written", "err", err)
			}
		}
	}
}

func (p *Pipeline) writeHeartbeat(ctx context.Context) error {
	now := time.Now()
	wm, pending := p.watermark(now)
	ctx, cancel := context.WithTimeout(ctx, p.cfg.InsertTimeout)
	defer cancel()
	batch, err := p.conn.PrepareBatch(ctx, insertHeartbeat)
	if err != nil {
		return fmt.Errorf("prepare heartbeat: %w", err)
	}
	defer batch.Close() //nolint:errcheck // no-op after Send
	lag := now.Sub(wm).Milliseconds()
	if err := batch.Append(p.cfg.WriterID, now, wm, uint32(min(lag, 1<<32-1)), uint64(pending)); err != nil {
		return fmt.Errorf("append heartbeat: %w", err)
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("send heartbeat: %w", err)
	}
	return nil
}

// watermark returns the capture time of the oldest click this pipeline
// still holds (batches, queue, spool), or now when it holds none, and how
// many clicks it holds. Hits sitting in the queue while no batch is open
// are not seen; the worker drains the queue every couple of milliseconds,
// also while a batch is being sent, so they are that young.
func (p *Pipeline) watermark(now time.Time) (time.Time, int64) {
	oldest := int64(0)
	older := func(t int64) {
		if t != 0 && (oldest == 0 || t < oldest) {
			oldest = t
		}
	}
	pending := int64(len(p.queue) + len(p.overflow))
	for _, w := range p.workers {
		older(w.oldest.Load())
		older(w.sendOldest.Load())
		pending += w.held.Load() + w.sendHeld.Load()
	}
	_, rows, _, spoolOldest := p.spool.pending()
	older(spoolOldest)
	pending += int64(rows)
	if oldest == 0 || oldest > now.UnixNano() {
		return now, pending
	}
	return time.Unix(0, oldest), pending
}

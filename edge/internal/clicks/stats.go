package clicks

import (
	"sync/atomic"
	"time"

	"kurz/shared/obs"
)

// metrics are the pipeline's counters (monotonic unless noted).
type metrics struct {
	inserted          atomic.Uint64
	spooled           atomic.Uint64
	replayed          atomic.Uint64
	dropped           atomic.Uint64
	rejected          atomic.Uint64
	overflowed        atomic.Uint64
	spoolFull         atomic.Uint64
	corrupt           atomic.Uint64
	duplicatesSkipped atomic.Uint64
	replayFailures    atomic.Uint64
	lastInsertLag     atomic.Int64 // gauge, nanoseconds
	batches           atomic.Uint64
	insertFailures    atomic.Uint64
	insertSeconds     *obs.Histogram // every INSERT's duration, failed ones included
}

// Stats is a snapshot of the pipeline's state and counters.
type Stats struct {
	Queued            int           // hits in the in-memory queue now
	Overflowing       int           // hits in the overflow buffer now, on their way to the spool
	Overflowed        uint64        // hits that found the queue full and took the spool path
	Inserted          uint64        // rows ClickHouse acknowledged, live and replayed
	Spooled           uint64        // rows written to the disk spool
	Replayed          uint64        // spooled rows inserted later (included in Inserted)
	Dropped           uint64        // hits lost: queue, overflow buffer and spool all full, or spool unwritable
	SpoolFull         uint64        // of Dropped: rows refused because the spool reached SpoolMaxBytes
	Rejected          uint64        // hits refused as invalid (unknown Kind or Class)
	Corrupt           uint64        // corrupt or truncated spool regions skipped on replay
	DuplicatesSkipped uint64        // spooled rows found already inserted when replaying an unacknowledged batch
	ReplayFailures    uint64        // replay inserts that failed, each followed by a longer wait (see replay.go)
	Quarantined       int           // unreadable segments set aside as .bad files, in the spool directory now
	QuarantinePruned  uint64        // .bad files deleted for being older than the quarantine age
	SpoolSegments     int           // sealed segments waiting for replay
	SpoolRows         int           // rows in the spool (sealed and open segments)
	SpoolBytes        int64         // bytes of the spool, counted against SpoolMaxBytes
	ClickHouseDown    bool          // batches go straight to the spool until the replayer reaches ClickHouse
	LastInsertLag     time.Duration // capture-to-acknowledgement time of the first row of the last live batch
	Batches           uint64        // INSERTs ClickHouse acknowledged, live and replayed
	InsertFailures    uint64        // INSERTs that failed (their rows went to the spool, or stay there)
}

// Stats returns current counters. It is cheap and safe to call at any time.
func (p *Pipeline) Stats() Stats {
	segs, rows, bytes, _ := p.spool.pending()
	quarantined, pruned := p.spool.quarantineStats()
	return Stats{
		Queued:            len(p.queue),
		Overflowing:       len(p.overflow),
		Overflowed:        p.m.overflowed.Load(),
		Inserted:          p.m.inserted.Load(),
		Spooled:           p.m.spooled.Load(),
		Replayed:          p.m.replayed.Load(),
		Dropped:           p.m.dropped.Load(),
		SpoolFull:         p.m.spoolFull.Load(),
		Rejected:          p.m.rejected.Load(),
		Corrupt:           p.m.corrupt.Load(),
		DuplicatesSkipped: p.m.duplicatesSkipped.Load(),
		ReplayFailures:    p.m.replayFailures.Load(),
		Quarantined:       quarantined,
		QuarantinePruned:  pruned,
		SpoolSegments:     segs,
		SpoolRows:         rows,
		SpoolBytes:        bytes,
		ClickHouseDown:    p.down.Load(),
		LastInsertLag:     time.Duration(p.m.lastInsertLag.Load()),
		Batches:           p.m.batches.Load(),
		InsertFailures:    p.m.insertFailures.Load(),
	}
}

// InsertLatency is the histogram of INSERT durations (live and replay,
// failed ones included), for /metrics.
func (p *Pipeline) InsertLatency() *obs.Histogram { return p.m.insertSeconds }

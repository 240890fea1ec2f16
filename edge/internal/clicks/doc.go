// Package clicks is the edge's click pipeline: it takes the Hits the
// redirect handlers produce, enriches them into rows and inserts them into
// ClickHouse in batches, without ever making a request wait on ClickHouse
// and without losing a click when ClickHouse is down or slow.
//
// Flow:
//
//	TryPush ──► queue (bounded, in memory) ──► worker: enrich, batch ══► sender ──► ClickHouse
//	   │ queue full                                                          │ insert failed / ClickHouse down
//	   ▼                                                                     ▼
//	overflow (bounded) ──► spooler ──────────► disk spool (segments) ──► replayer ──► ClickHouse
//	   │ overflow full
//	   ▼
//	dropped (metric)
//
// TryPush never blocks and never allocates. A batch is handed to the
// worker's sender goroutine when it holds Config.BatchSize rows or every
// Config.FlushInterval (later, if the previous batch is still being sent),
// and the worker goes on filling the next one while the sender inserts
// it: one INSERT in blocks of Config.ChunkRows with a short sleep between
// them, so that encoding a batch never holds the edge's only P for long
// (chstore.Chunking). A batch ClickHouse refuses becomes a spool segment;
// while ClickHouse is considered down, senders write their batches
// straight to the spool, and the replayer pings
// it with backoff, then sends the segments oldest first, deleting each only
// after ClickHouse acknowledged its rows. The spool is capped at
// Config.SpoolMaxBytes; beyond that, clicks are dropped, logged and counted.
// Close stops intake, drains the queue to ClickHouse or the spool and
// fsyncs; New replays what a previous run spooled.
//
// A server that answers ping but refuses inserts (read-only, disk full,
// too many parts) is not pinged back into service: the replayer waits
// after each failed replay, doubling from 100 ms up to 30 s with jitter,
// and only a replay that succeeds resets the wait and lets the workers
// insert live batches again; the failure is logged at once, then once a
// minute (replay.go, backoff.go). Stats.ReplayFailures counts them.
//
// Durability: a segment is fsynced, then its directory, when it is
// written (a refused batch), sealed (an overflow segment) or renamed, so
// that its name survives a crash with its data. A segment this build
// cannot read is renamed *.seg.bad and kept for inspection; those files
// are counted (Stats.Quarantined), reported when the spool opens, and
// deleted after Config.QuarantineMaxAge (7 days) when the spool opens or
// another is set aside (quarantine.go).
//
// Delivery is at least once. Every row carries a random click_id that it
// keeps through the spool. An insert whose outcome is unknown (the
// connection broke while or after its blocks were sent; ClickHouse 18.16
// keeps the blocks of an insert abandoned midway) is spooled with a
// "check first" flag, and the replayer flags a segment the same way (on
// disk) before sending it; a flagged segment's rows are looked up by
// click_id and only the missing ones are inserted. So neither a lost
// acknowledgement nor a crash between a replayed insert and the deletion of
// its segment duplicates rows. The one window left: an insert whose
// acknowledgement was lost may still be in progress on the server when the
// replayer checks for its rows (the check sees none and inserts them
// again). ClickHouse has no transactional dedup for MergeTree on 18.16, so
// a reader that must be exact can count uniqExact(click_id) instead of
// count().
//
// Several edge processes may write to one ClickHouse: nothing here assumes a
// single writer. Each process needs its own spool directory; a lock file
// (flock) makes a second process fail fast instead of replaying the first
// one's segments twice.
package clicks

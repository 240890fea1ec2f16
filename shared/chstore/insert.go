package chstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// ErrSendFailed marks an insert that failed while or after its data was
// sent: ClickHouse may or may not have stored the rows. Errors without it
// happened before any row left the process, so the rows are certainly not
// stored.
var ErrSendFailed = errors.New("clickhouse insert outcome unknown")

// InsertBlock inserts b into the clicks table as one batch (one part on the
// server, atomic for the raw table). An error wrapping ErrSendFailed means
// the outcome is unknown.
func InsertBlock(ctx context.Context, conn driver.Conn, b *click.Block) error {
	if b.Len() == 0 {
		return nil
	}
	batch, err := conn.PrepareBatch(ctx, click.InsertSQL)
	if err != nil {
		return fmt.Errorf("prepare clicks insert: %w", err)
	}
	// Close releases the connection if anything below fails before Send; it
	// is a no-op after Send.
	defer batch.Close() //nolint:errcheck
	if err := appendBlock(batch, b); err != nil {
		return err
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("send %d clicks: %w: %w", b.Len(), ErrSendFailed, err)
	}
	return nil
}

// Chunking splits one INSERT into several data blocks.
//
// Why: encoding and compressing a batch is pure CPU in the caller's
// goroutine. On the edge (GOMAXPROCS=1) a 10k-row batch held the only P for
// 5–10 ms in one piece, and every request that arrived meanwhile waited
// (edge/PERFORMANCE.md, open-loop tail). In chunks, with a sleep between
// them, the scheduler polls the network between chunks. (runtime.Gosched
// does not: the yielding goroutine goes to the global run queue, which the
// scheduler checks before the netpoller.)
//
// The server still writes one part per INSERT: it squashes the blocks of an
// insert (min_insert_block_size_rows, about 1M rows by default) before the
// table and its materialized views see them (TestInsertRowsChunked).
//
// What chunking changes: an insert abandoned midway (timeout, network
// error) is not all-or-nothing. ClickHouse 18.16 treats a client that
// disconnects as the end of the data and stores the blocks it already
// received (TestInsertRowsUnfinished). Such failures wrap ErrSendFailed, so
// callers already treat them as "some or all rows may be stored": the click
// pipeline spools the batch flagged for a per-row click_id check and
// replays only the rows that are missing (edge/internal/clicks, replay.go).
type Chunking struct {
	Rows  int           // rows per data block; 0 or more than the batch: one block
	Pause time.Duration // sleep between blocks; 0: none
}

// DefaultChunking is the edge pipeline's: a 2048-row block encodes in
// about a millisecond.
func DefaultChunking() Chunking { return Chunking{Rows: 2048, Pause: 200 * time.Microsecond} }

// InsertRows inserts rows into the clicks table as one INSERT, sent in
// blocks of c.Rows rows built in blk (reused; its content is replaced). An
// error wrapping ErrSendFailed means the outcome is unknown: any failure
// after the first block was sent is reported so.
func InsertRows(ctx context.Context, conn driver.Conn, blk *click.Block, rows []click.Row, c Chunking) error {
	return insertRows(ctx, conn, click.InsertSQL, blk, rows, c)
}

// InsertRowsInto is InsertRows into another table with the clicks table's
// columns; table must be a trusted identifier (see click.InsertSQLFor).
func InsertRowsInto(ctx context.Context, conn driver.Conn, table string, blk *click.Block, rows []click.Row, c Chunking) error {
	return insertRows(ctx, conn, click.InsertSQLFor(table), blk, rows, c)
}

func insertRows(ctx context.Context, conn driver.Conn, sql string, blk *click.Block, rows []click.Row, c Chunking) error {
	if len(rows) == 0 {
		return nil
	}
	chunk := c.Rows
	if chunk <= 0 || chunk > len(rows) {
		chunk = len(rows)
	}
	batch, err := conn.PrepareBatch(ctx, sql)
	if err != nil {
		return fmt.Errorf("prepare clicks insert: %w", err)
	}
	// Abort, not Close: Close ends the INSERT normally and would store the
	// blocks already flushed on any server; Abort drops the connection.
	// It is a no-op after Send.
	defer batch.Abort() //nolint:errcheck
	for from := 0; from < len(rows); from += chunk {
		to := min(from+chunk, len(rows))
		blk.Reset()
		for i := from; i < to; i++ {
			blk.Add(&rows[i])
		}
		if err := appendBlock(batch, blk); err != nil {
			return unknownAfter(from, len(rows), err)
		}
		if to == len(rows) {
			break
		}
		if err := batch.Flush(); err != nil {
			return fmt.Errorf("send clicks %d-%d of %d: %w: %w", from, to, len(rows), ErrSendFailed, err)
		}
		if err := pause(ctx, c.Pause); err != nil {
			return fmt.Errorf("insert %d clicks: %w: %w", len(rows), ErrSendFailed, err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("send %d clicks: %w: %w", len(rows), ErrSendFailed, err)
	}
	return nil
}

// unknownAfter marks err as an unknown outcome once a block has been sent.
func unknownAfter(sentRows, total int, err error) error {
	if sentRows == 0 {
		return err
	}
	return fmt.Errorf("insert %d clicks: %w: %w", total, ErrSendFailed, err)
}

func appendBlock(batch driver.Batch, b *click.Block) error {
	for i, col := range b.Columns() {
		if err := batch.Column(i).Append(col.Data); err != nil {
			return fmt.Errorf("append clicks column %s: %w", col.Name, err)
		}
	}
	return nil
}

func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

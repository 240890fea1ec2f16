package pgstore

import (
	"context"
	"fmt"
)

// walPositionQuery reads the server's WAL position as a byte offset: on a
// primary the insert position, on a standby the position replayed so far
// (a standby's current position is an error). The insert position, not
// the write position: with synchronous_commit=off a commit is visible,
// and notified, before its record is written.
const walPositionQuery = `SELECT pg_is_in_recovery(), (CASE WHEN pg_is_in_recovery()
	THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END - '0/0'::pg_lsn)::bigint`

// WAL pages (XLOG_BLCKSZ of standard builds) start with a header of 24
// bytes, 40 at a segment's start. An idle primary's insert position sits
// after the header of the page the next record will go to, while a
// standby's replay position is the end of the last record, the page's
// start: the same point of the WAL.
const (
	walPageSize       = 8192
	walPageHeader     = 24
	walLongPageHeader = 40
)

// WALPosition returns how far the server's WAL goes: a primary's current
// position, or what a standby has replayed. Every commit a primary made
// before it answered is at or below its position; a standby whose
// position reaches it has replayed them all (the edge's read replica,
// edge/internal/catalog/reads.go).
func (s *Store) WALPosition(ctx context.Context) (uint64, error) {
	var (
		standby bool
		pos     int64
	)
	if err := s.pool.QueryRow(ctx, walPositionQuery).Scan(&standby, &pos); err != nil {
		return 0, fmt.Errorf("wal position: %w", mapErr(err))
	}
	p := uint64(pos)
	if off := p % walPageSize; !standby && (off == walPageHeader || off == walLongPageHeader) {
		p -= off
	}
	return p, nil
}

package pgstore

import (
	"context"
	"fmt"
)

// walPositionQuery reads the server's WAL position as a byte offset: on a
// primary the current write position, on a standby the position replayed
// so far (a standby's current position is an error).
const walPositionQuery = `SELECT (CASE WHEN pg_is_in_recovery()
	THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END - '0/0'::pg_lsn)::bigint`

// WALPosition returns how far the server's WAL goes: a primary's current
// position, or what a standby has replayed. Every commit a primary made
// before it answered is at or below its position; a standby whose
// position reaches it has replayed them all (the edge's read replica,
// edge/internal/catalog/reads.go).
func (s *Store) WALPosition(ctx context.Context) (uint64, error) {
	var pos int64
	if err := s.pool.QueryRow(ctx, walPositionQuery).Scan(&pos); err != nil {
		return 0, fmt.Errorf("wal position: %w", mapErr(err))
	}
	return uint64(pos), nil
}

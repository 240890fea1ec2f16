package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Counter roll-up: the admin copies each link's and QR code's human click
// count from ClickHouse into links.clicks and qr_codes.scans, so list pages
// and order=click are plain indexed PostgreSQL reads. The values written
// are absolute totals, which makes every write idempotent and lets several
// admin processes roll up at once. The roll-up sends no change notices: its
// transactions are marked so that the kurz_changes triggers skip them
// (migration 0023), and the trigger function also ignores any other update
// that changes only these columns.

// CounterBatch bounds the ids of one UPDATE statement.
const CounterBatch = 5000

// setClicksSQL writes absolute counts. Without $3 a count only grows: a
// process that read ClickHouse a moment before another cannot move a
// counter back. With $3 (a full reconcile) any difference is corrected.
const setClicksSQL = `UPDATE links AS l SET clicks = v.n
FROM unnest($1::bigint[], $2::bigint[]) AS v(id, n)
WHERE l.id = v.id AND (l.clicks < v.n OR ($3 AND l.clicks <> v.n))`

const setScansSQL = `UPDATE qr_codes AS q SET scans = v.n
FROM unnest($1::bigint[], $2::bigint[]) AS v(id, n)
WHERE q.id = v.id AND (q.scans < v.n OR ($3 AND q.scans <> v.n))`

// SetLinkClicks sets links.clicks of ids[i] to counts[i] and returns how
// many rows changed. Unknown ids are ignored. exact allows lowering a
// counter (reconcile); otherwise counters only grow.
func (s *Store) SetLinkClicks(ctx context.Context, ids, counts []int64, exact bool) (int64, error) {
	return s.setCounters(ctx, "link clicks", setClicksSQL, ids, counts, exact)
}

// SetQRScans is SetLinkClicks for qr_codes.scans.
func (s *Store) SetQRScans(ctx context.Context, ids, counts []int64, exact bool) (int64, error) {
	return s.setCounters(ctx, "qr scans", setScansSQL, ids, counts, exact)
}

func (s *Store) setCounters(ctx context.Context, what, sql string, ids, counts []int64, exact bool) (int64, error) {
	if len(ids) != len(counts) {
		return 0, fmt.Errorf("set %s: %d ids but %d counts", what, len(ids), len(counts))
	}
	var changed int64
	for start := 0; start < len(ids); start += CounterBatch {
		end := min(start+CounterBatch, len(ids))
		n, err := s.setCounterBatch(ctx, sql, ids[start:end], counts[start:end], exact)
		if err != nil {
			return changed, fmt.Errorf("set %s: %w", what, mapErr(err))
		}
		changed += n
	}
	return changed, nil
}

// setCounterBatch runs one counter UPDATE in a transaction marked
// kurz.counters_only, which the change-notice triggers skip without
// looking at the rows (migration 0023). The mark ends with the
// transaction, so it never leaks to other statements on the connection.
func (s *Store) setCounterBatch(ctx context.Context, sql string, ids, counts []int64, exact bool) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT set_config('kurz.counters_only', 'on', true)"); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, sql, ids, counts, exact)
		n = tag.RowsAffected()
		return err
	})
	return n, err
}

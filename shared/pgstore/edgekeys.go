package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// The keys of everything the edge serves, streamed whole: the edge builds
// from them the sets that answer "no such alias, slug or code" from memory
// (edge/internal/catalog, existence.go). Each reads only the key columns,
// in one read-only transaction (one snapshot), without JIT compilation:
// the planner's estimate for a whole-table read of millions of rows
// crosses jit_above_cost, and compiling costs more than the scan.

// EdgeAllLinkKeys calls fn with the (host, alias) of every link. The
// slices are only valid during the call (they are the driver's buffer:
// a million rows cost no allocation each).
func (s *Store) EdgeAllLinkKeys(ctx context.Context, fn func(host, alias []byte)) error {
	return s.streamKeys(ctx, "edge link keys", `SELECT host, alias FROM links`, func(row [][]byte) {
		fn(row[0], row[1])
	})
}

// EdgeAllCampaignKeys calls fn with the id, rotator slug ("" when none)
// and owner's username of every campaign. The slices are only valid
// during the call.
func (s *Store) EdgeAllCampaignKeys(ctx context.Context, fn func(id int64, slug, username []byte)) error {
	return s.streamKeys(ctx, "edge campaign keys",
		`SELECT c.id::text, COALESCE(c.slug, ''), u.username FROM campaigns c JOIN users u ON u.id = c.user_id`,
		func(row [][]byte) {
			var id int64
			for _, c := range row[0] { // decimal text of a bigint
				id = id*10 + int64(c-'0')
			}
			fn(id, row[1], row[2])
		})
}

// EdgeAllQRCodes calls fn with the code of every QR code. The slice is only
// valid during the call.
func (s *Store) EdgeAllQRCodes(ctx context.Context, fn func(code []byte)) error {
	return s.streamKeys(ctx, "edge qr codes", `SELECT code FROM qr_codes`, func(row [][]byte) {
		fn(row[0])
	})
}

// streamKeys runs q, whose columns are all text (raw values are their
// bytes in both wire formats), and hands each row's raw values to fn.
func (s *Store) streamKeys(ctx context.Context, what, q string, fn func(row [][]byte)) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("%s: %w", what, mapErr(err))
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only; nothing to keep
	if _, err := tx.Exec(ctx, "SET LOCAL jit = off"); err != nil {
		return fmt.Errorf("%s: %w", what, mapErr(err))
	}
	rows, err := tx.Query(ctx, q)
	if err != nil {
		return fmt.Errorf("%s: %w", what, mapErr(err))
	}
	defer rows.Close()
	for rows.Next() {
		fn(rows.RawValues())
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, mapErr(err))
	}
	return nil
}

package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"kurz/shared/link"
)

// Several links of one user at once: the dashboard's bulk delete reads the
// links it asks about and deletes them in one transaction.

// LinksByIDs returns the user's links among ids, newest first; ids of
// other users' links and unknown ids are left out.
func (s *Store) LinksByIDs(ctx context.Context, userID int64, ids []int64) ([]link.Link, error) {
	links, err := s.queryLinks(ctx, `SELECT `+linkColumns+` WHERE l.user_id = $1 AND l.id = ANY($2)
	ORDER BY l.created_at DESC, l.id DESC`, userID, ids)
	if err != nil {
		return nil, fmt.Errorf("read links %v of user %d: %w", ids, userID, err)
	}
	return links, nil
}

// DeleteLinks deletes the user's links ids, all or none: when any id is
// not one of the user's links (another user's, unknown, or deleted
// meanwhile) nothing is deleted and the error wraps link.ErrNotFound.
// Repeated ids count once.
func (s *Store) DeleteLinks(ctx context.Context, userID int64, ids []int64) error {
	want := len(uniqueIDs(ids))
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM links WHERE user_id = $1 AND id = ANY($2)`, userID, ids)
		if err != nil {
			return mapErr(err)
		}
		if n := tag.RowsAffected(); n != int64(want) {
			// Returning an error rolls the deletes back.
			return fmt.Errorf("%d of %d are not the user's: %w", int64(want)-n, want, link.ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete links %v: %w", ids, err)
	}
	return nil
}

// uniqueIDs is ids without repeats.
func uniqueIDs(ids []int64) map[int64]struct{} {
	set := make(map[int64]struct{}, len(ids))
	for _, id := range ids {
		set[id] = struct{}{}
	}
	return set
}

package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"kurz/shared/link"
)

const overlayColumns = `id, user_id, name, type, message, button_text, button_url, background, color, position, created_at`

func scanOverlay(row pgx.Row) (link.Overlay, error) {
	var o link.Overlay
	err := row.Scan(&o.ID, &o.UserID, &o.Name, &o.Type, &o.Message, &o.ButtonText, &o.ButtonURL, &o.Background, &o.Color, &o.Position, &o.CreatedAt)
	o.CreatedAt = o.CreatedAt.UTC()
	return o, mapErr(err)
}

// ListOverlays returns one page of the user's overlays, newest first, and
// their total number.
func (s *Store) ListOverlays(ctx context.Context, userID int64, limit, offset int) ([]link.Overlay, int, error) {
	total, err := s.countOf(ctx, `SELECT count(*) FROM overlays WHERE user_id = $1`, userID)
	if err != nil {
		return nil, 0, fmt.Errorf("count overlays of %d: %w", userID, err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+overlayColumns+` FROM overlays WHERE user_id = $1
		ORDER BY id DESC LIMIT $2 OFFSET $3`, userID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list overlays of %d: %w", userID, mapErr(err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (link.Overlay, error) { return scanOverlay(r) })
	if err != nil {
		return nil, 0, fmt.Errorf("list overlays of %d: %w", userID, mapErr(err))
	}
	return out, total, nil
}

// OverlayByID loads one of the user's overlays.
func (s *Store) OverlayByID(ctx context.Context, userID, id int64) (link.Overlay, error) {
	o, err := scanOverlay(s.pool.QueryRow(ctx, `SELECT `+overlayColumns+` FROM overlays WHERE id = $1 AND user_id = $2`, id, userID))
	if err != nil {
		return o, fmt.Errorf("overlay %d: %w", id, err)
	}
	return o, nil
}

// CreateOverlay inserts o for o.UserID and returns its id.
func (s *Store) CreateOverlay(ctx context.Context, o link.Overlay) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `INSERT INTO overlays (user_id, name, type, message, button_text, button_url, background, color, position)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
		o.UserID, o.Name, o.Type, o.Message, o.ButtonText, o.ButtonURL, o.Background, o.Color, o.Position).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("create overlay: %w", mapErr(err))
	}
	return id, nil
}

// UpdateOverlay loads the user's overlay, lets change modify it (an error
// from change aborts with nothing written) and stores the result, all in
// one transaction.
func (s *Store) UpdateOverlay(ctx context.Context, userID, id int64, change func(*link.Overlay) error) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		o, err := scanOverlay(tx.QueryRow(ctx, `SELECT `+overlayColumns+` FROM overlays WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID))
		if err != nil {
			return err
		}
		if err := change(&o); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE overlays SET name = $2, type = $3, message = $4, button_text = $5, button_url = $6,
			background = $7, color = $8, position = $9 WHERE id = $1`,
			id, o.Name, o.Type, o.Message, o.ButtonText, o.ButtonURL, o.Background, o.Color, o.Position)
		return mapErr(err)
	})
	if err != nil {
		return fmt.Errorf("update overlay %d: %w", id, err)
	}
	return nil
}

// DeleteOverlay removes one of the user's overlays. Links showing it fall
// back to type direct in the same transaction (the FK alone would leave
// type overlay without an overlay).
func (s *Store) DeleteOverlay(ctx context.Context, userID, id int64) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockOwned(ctx, tx, `SELECT id FROM overlays WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE links SET overlay_id = NULL, updated_at = now(),
			type = CASE WHEN type = 'overlay' THEN 'direct' ELSE type END WHERE overlay_id = $1`, id); err != nil {
			return mapErr(err)
		}
		_, err := tx.Exec(ctx, `DELETE FROM overlays WHERE id = $1`, id)
		return mapErr(err)
	})
	if err != nil {
		return fmt.Errorf("delete overlay %d: %w", id, err)
	}
	return nil
}

// lockOwned locks one row the user owns (query selects it by $1 id and $2
// user id FOR UPDATE); ErrNotFound when there is none.
func lockOwned(ctx context.Context, tx pgx.Tx, query string, id, userID int64) error {
	var found int64
	return mapErr(tx.QueryRow(ctx, query, id, userID).Scan(&found))
}

// countOf runs a count(*) query.
func (s *Store) countOf(ctx context.Context, query string, args ...any) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		return 0, mapErr(err)
	}
	return n, nil
}

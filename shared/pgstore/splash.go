package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"kurz/shared/link"
)

const splashColumns = `id, user_id, name, title, message, image, link, counter, created_at`

func scanSplash(row pgx.Row) (link.SplashPage, error) {
	var p link.SplashPage
	err := row.Scan(&p.ID, &p.UserID, &p.Name, &p.Title, &p.Message, &p.Image, &p.Link, &p.Counter, &p.CreatedAt)
	p.CreatedAt = p.CreatedAt.UTC()
	return p, mapErr(err)
}

// ListSplashPages returns one page of the user's splash pages, newest
// first, and their total number.
func (s *Store) ListSplashPages(ctx context.Context, userID int64, limit, offset int) ([]link.SplashPage, int, error) {
	total, err := s.countOf(ctx, `SELECT count(*) FROM splash_pages WHERE user_id = $1`, userID)
	if err != nil {
		return nil, 0, fmt.Errorf("count splash pages of %d: %w", userID, err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+splashColumns+` FROM splash_pages WHERE user_id = $1
		ORDER BY id DESC LIMIT $2 OFFSET $3`, userID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list splash pages of %d: %w", userID, mapErr(err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (link.SplashPage, error) { return scanSplash(r) })
	if err != nil {
		return nil, 0, fmt.Errorf("list splash pages of %d: %w", userID, mapErr(err))
	}
	return out, total, nil
}

// SplashPageByID loads one of the user's splash pages.
func (s *Store) SplashPageByID(ctx context.Context, userID, id int64) (link.SplashPage, error) {
	p, err := scanSplash(s.pool.QueryRow(ctx, `SELECT `+splashColumns+` FROM splash_pages WHERE id = $1 AND user_id = $2`, id, userID))
	if err != nil {
		return p, fmt.Errorf("splash page %d: %w", id, err)
	}
	return p, nil
}

// CreateSplashPage inserts p for p.UserID and returns its id.
func (s *Store) CreateSplashPage(ctx context.Context, p link.SplashPage) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `INSERT INTO splash_pages (user_id, name, title, message, image, link, counter)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		p.UserID, p.Name, p.Title, p.Message, p.Image, p.Link, p.Counter).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("create splash page: %w", mapErr(err))
	}
	return id, nil
}

// UpdateSplashPage loads the user's splash page, lets change modify it and
// stores the result in one transaction; an error from change writes nothing.
func (s *Store) UpdateSplashPage(ctx context.Context, userID, id int64, change func(*link.SplashPage) error) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		p, err := scanSplash(tx.QueryRow(ctx, `SELECT `+splashColumns+` FROM splash_pages WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID))
		if err != nil {
			return err
		}
		if err := change(&p); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE splash_pages SET name = $2, title = $3, message = $4, image = $5, link = $6, counter = $7
			WHERE id = $1`, id, p.Name, p.Title, p.Message, p.Image, p.Link, p.Counter)
		return mapErr(err)
	})
	if err != nil {
		return fmt.Errorf("update splash page %d: %w", id, err)
	}
	return nil
}

// DeleteSplashPage removes one of the user's splash pages; links showing it
// fall back to type direct in the same transaction.
func (s *Store) DeleteSplashPage(ctx context.Context, userID, id int64) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockOwned(ctx, tx, `SELECT id FROM splash_pages WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE links SET splash_id = NULL, updated_at = now(),
			type = CASE WHEN type = 'splash' THEN 'direct' ELSE type END WHERE splash_id = $1`, id); err != nil {
			return mapErr(err)
		}
		_, err := tx.Exec(ctx, `DELETE FROM splash_pages WHERE id = $1`, id)
		return mapErr(err)
	})
	if err != nil {
		return fmt.Errorf("delete splash page %d: %w", id, err)
	}
	return nil
}

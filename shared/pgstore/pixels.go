package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"kurz/shared/link"
)

const pixelColumns = `id, user_id, type, name, tag, created_at`

func scanPixel(row pgx.Row) (*link.Pixel, error) {
	var p link.Pixel
	if err := row.Scan(&p.ID, &p.UserID, &p.Type, &p.Name, &p.Tag, &p.CreatedAt); err != nil {
		return nil, mapErr(err)
	}
	p.CreatedAt = p.CreatedAt.UTC()
	return &p, nil
}

// ListPixels returns a page of the user's pixels, newest first, and the
// user's total.
func (s *Store) ListPixels(ctx context.Context, userID int64, limit, offset int) ([]link.Pixel, int, error) {
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM pixels WHERE user_id = $1`, userID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count pixels of user %d: %w", userID, mapErr(err))
	}
	rows, err := s.pool.Query(ctx, `SELECT `+pixelColumns+` FROM pixels WHERE user_id = $1
		ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, userID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list pixels of user %d: %w", userID, mapErr(err))
	}
	defer rows.Close()
	out := []link.Pixel{}
	for rows.Next() {
		p, err := scanPixel(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("list pixels of user %d: %w", userID, err)
		}
		out = append(out, *p)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list pixels of user %d: %w", userID, mapErr(err))
	}
	return out, total, nil
}

// PixelByID returns one of the user's pixels; another user's or an unknown
// id is link.ErrNotFound.
func (s *Store) PixelByID(ctx context.Context, userID, id int64) (*link.Pixel, error) {
	p, err := scanPixel(s.pool.QueryRow(ctx, `SELECT `+pixelColumns+` FROM pixels WHERE id = $1 AND user_id = $2`, id, userID))
	if err != nil {
		return nil, fmt.Errorf("pixel %d: %w", id, err)
	}
	return p, nil
}

// CreatePixel inserts p (UserID, Type, Name, Tag set) and fills ID and
// CreatedAt.
func (s *Store) CreatePixel(ctx context.Context, p *link.Pixel) error {
	err := s.pool.QueryRow(ctx, `INSERT INTO pixels (user_id, type, name, tag) VALUES ($1, $2, $3, $4) RETURNING id, created_at`,
		p.UserID, p.Type, p.Name, p.Tag).Scan(&p.ID, &p.CreatedAt)
	if err != nil {
		return fmt.Errorf("create pixel of user %d: %w", p.UserID, mapErr(err))
	}
	p.CreatedAt = p.CreatedAt.UTC()
	return nil
}

// UpdatePixel sets the tag and, when not nil, the type and the name of one
// of the user's pixels.
func (s *Store) UpdatePixel(ctx context.Context, userID, id int64, typ, name *string, tag string) error {
	res, err := s.pool.Exec(ctx, `UPDATE pixels SET tag = $3, name = coalesce($4, name), type = coalesce($5, type)
		WHERE id = $1 AND user_id = $2`, id, userID, tag, name, typ)
	if err != nil {
		return fmt.Errorf("update pixel %d: %w", id, mapErr(err))
	}
	if res.RowsAffected() == 0 {
		return fmt.Errorf("update pixel %d: %w", id, link.ErrNotFound)
	}
	return nil
}

// DeletePixel deletes one of the user's pixels; links that used it lose it
// (link_pixels rows cascade).
func (s *Store) DeletePixel(ctx context.Context, userID, id int64) error {
	res, err := s.pool.Exec(ctx, `DELETE FROM pixels WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return fmt.Errorf("delete pixel %d: %w", id, mapErr(err))
	}
	if res.RowsAffected() == 0 {
		return fmt.Errorf("delete pixel %d: %w", id, link.ErrNotFound)
	}
	return nil
}

package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"kurz/shared/link"
)

// qrColumns never include the logo bytes: reads only need to know whether
// there is one, and the edge loads the bytes itself.
const qrColumns = `id, user_id, code, name, type, data, content, target_url, background, foreground,
	logo IS NOT NULL, channel_id, created_at, updated_at`

func scanQR(row pgx.Row) (*link.QR, error) {
	var q link.QR
	var data []byte
	err := row.Scan(&q.ID, &q.UserID, &q.Code, &q.Name, &q.Type, &data, &q.Content, &q.TargetURL,
		&q.Background, &q.Foreground, &q.HasLogo, &q.ChannelID, &q.CreatedAt, &q.UpdatedAt)
	if err != nil {
		return nil, mapErr(err)
	}
	q.Data = data
	q.CreatedAt, q.UpdatedAt = q.CreatedAt.UTC(), q.UpdatedAt.UTC()
	return &q, nil
}

// ListQRs returns a page of the user's QR codes, newest first, and the
// user's total.
func (s *Store) ListQRs(ctx context.Context, userID int64, limit, offset int) ([]link.QR, int, error) {
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM qr_codes WHERE user_id = $1`, userID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count qr codes of user %d: %w", userID, mapErr(err))
	}
	rows, err := s.pool.Query(ctx, `SELECT `+qrColumns+` FROM qr_codes WHERE user_id = $1
		ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, userID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list qr codes of user %d: %w", userID, mapErr(err))
	}
	defer rows.Close()
	out := []link.QR{}
	for rows.Next() {
		q, err := scanQR(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("list qr codes of user %d: %w", userID, err)
		}
		out = append(out, *q)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list qr codes of user %d: %w", userID, mapErr(err))
	}
	return out, total, nil
}

// QRByID loads one of the user's QR codes (without the logo bytes).
func (s *Store) QRByID(ctx context.Context, userID, id int64) (*link.QR, error) {
	q, err := scanQR(s.pool.QueryRow(ctx, `SELECT `+qrColumns+` FROM qr_codes WHERE id = $1 AND user_id = $2`, id, userID))
	if err != nil {
		return nil, fmt.Errorf("load qr code %d: %w", id, err)
	}
	return q, nil
}

// CreateQR inserts q (UserID, Name, Type, Data, Content, TargetURL,
// colours and Logo set) and fills ID, Code and the timestamps. setCode is
// called before each attempt to pick a fresh random code (and, for link
// codes, the Content that embeds it); a taken code is retried, the unique
// index deciding, so concurrent inserts never race.
func (s *Store) CreateQR(ctx context.Context, q *link.QR, setCode func(q *link.QR)) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		for range link.MaxQRCodeAttempts {
			setCode(q)
			ok, err := insertQR(ctx, tx, q)
			if err != nil || ok {
				return err
			}
		}
		return fmt.Errorf("no free qr code after %d attempts", link.MaxQRCodeAttempts)
	})
	if err != nil {
		return fmt.Errorf("create qr code of user %d: %w", q.UserID, err)
	}
	q.HasLogo = q.Logo != nil
	return nil
}

// insertQR inserts q unless its code is taken; ON CONFLICT keeps the
// transaction usable for the next attempt.
func insertQR(ctx context.Context, tx pgx.Tx, q *link.QR) (bool, error) {
	err := tx.QueryRow(ctx, `INSERT INTO qr_codes (user_id, code, name, type, data, content, target_url,
		background, foreground, logo) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10)
		ON CONFLICT (code) DO NOTHING
		RETURNING id, created_at, updated_at`,
		q.UserID, q.Code, q.Name, q.Type, string(q.Data), q.Content, q.TargetURL, q.Background, q.Foreground, q.Logo,
	).Scan(&q.ID, &q.CreatedAt, &q.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, mapErr(err)
	}
	q.CreatedAt, q.UpdatedAt = q.CreatedAt.UTC(), q.UpdatedAt.UTC()
	return true, nil
}

// UpdateQR loads one of the user's QR codes (locked, without logo bytes),
// lets change modify it and stores the result in one transaction. The
// code, type, owner, channel and scans are never written. The logo is
// removed when change clears HasLogo, replaced when it sets Logo, and
// otherwise kept.
func (s *Store) UpdateQR(ctx context.Context, userID, id int64, change func(q *link.QR) error) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		q, err := scanQR(tx.QueryRow(ctx, `SELECT `+qrColumns+` FROM qr_codes WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID))
		if err != nil {
			return err
		}
		if err := change(q); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE qr_codes SET name = $2, data = $3::jsonb, content = $4, target_url = $5,
			background = $6, foreground = $7,
			logo = CASE WHEN NOT $8::bool THEN NULL WHEN $9::bytea IS NOT NULL THEN $9::bytea ELSE logo END,
			updated_at = now()
			WHERE id = $1`,
			id, q.Name, string(q.Data), q.Content, q.TargetURL, q.Background, q.Foreground, q.HasLogo, q.Logo)
		return mapErr(err)
	})
	if err != nil {
		return fmt.Errorf("update qr code %d: %w", id, err)
	}
	return nil
}

// DeleteQR deletes one of the user's QR codes.
func (s *Store) DeleteQR(ctx context.Context, userID, id int64) error {
	res, err := s.pool.Exec(ctx, `DELETE FROM qr_codes WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return fmt.Errorf("delete qr code %d: %w", id, mapErr(err))
	}
	if res.RowsAffected() == 0 {
		return fmt.Errorf("delete qr code %d: %w", id, link.ErrNotFound)
	}
	return nil
}

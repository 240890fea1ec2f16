package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Refusals of an invitation code by RegisterUser.
var (
	ErrInviteUnknown = errors.New("invite code unknown")
	ErrInviteExpired = errors.New("invite code expired")
	ErrInviteUsedUp  = errors.New("invite code used up")
)

// Invite is a stored invitation code (without the code: only its hash is
// kept).
type Invite struct {
	ID        int64
	UsesLeft  *int // nil = unlimited
	Used      int
	ExpiresAt *time.Time
	CreatedAt time.Time
}

// CreateInvite stores the hash of a new invitation code good for uses
// registrations (nil = unlimited) until expires (nil = never).
func (s *Store) CreateInvite(ctx context.Context, hash []byte, uses *int, expires *time.Time) (*Invite, error) {
	inv, err := scanInvite(s.pool.QueryRow(ctx, `INSERT INTO invites (code_hash, uses_left, expires_at)
		VALUES ($1, $2, $3) RETURNING `+inviteColumns, hash, uses, expires))
	if err != nil {
		return nil, fmt.Errorf("create invite: %w", err)
	}
	return inv, nil
}

const inviteColumns = `id, uses_left, used, expires_at, created_at`

func scanInvite(row pgx.Row) (*Invite, error) {
	var inv Invite
	if err := row.Scan(&inv.ID, &inv.UsesLeft, &inv.Used, &inv.ExpiresAt, &inv.CreatedAt); err != nil {
		return nil, mapErr(err)
	}
	inv.CreatedAt = inv.CreatedAt.UTC()
	if inv.ExpiresAt != nil {
		t := inv.ExpiresAt.UTC()
		inv.ExpiresAt = &t
	}
	return &inv, nil
}

// useInvite takes one use of the invite inside tx and returns its id. The
// conditional UPDATE both checks and decrements: a concurrent transaction
// on the same row waits for this one and then re-checks uses_left, so the
// count never goes below zero. Expiry is judged by the database clock.
func useInvite(ctx context.Context, tx pgx.Tx, hash []byte) (int64, error) {
	var id int64
	err := tx.QueryRow(ctx, `UPDATE invites SET uses_left = uses_left - 1, used = used + 1
		WHERE code_hash = $1 AND (uses_left IS NULL OR uses_left > 0) AND (expires_at IS NULL OR expires_at > now())
		RETURNING id`, hash).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("use invite: %w", mapErr(err))
	}
	// Refused: say why, so the user knows whether to ask for a new code.
	var expired bool
	err = tx.QueryRow(ctx, `SELECT coalesce(expires_at <= now(), false) FROM invites WHERE code_hash = $1`, hash).Scan(&expired)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, ErrInviteUnknown
	case err != nil:
		return 0, fmt.Errorf("check invite: %w", mapErr(err))
	case expired:
		return 0, ErrInviteExpired
	}
	return 0, ErrInviteUsedUp
}

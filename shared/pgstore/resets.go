package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"kurz/shared/link"
)

// One-time password reset tokens (migration 0034): `admin user
// reset-password` makes one and prints its link; the dashboard's reset
// page spends it. Only the token's SHA-256 is stored (the caller hashes).

// CreatePasswordReset stores a reset token for the account with this
// email (case-insensitive), valid for ttl, and returns the account and
// the token's expiry. An unknown email is link.ErrNotFound.
func (s *Store) CreatePasswordReset(ctx context.Context, email string, tokenHash []byte, ttl time.Duration) (*link.User, time.Time, error) {
	var u *link.User
	var exp time.Time
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if u, err = scanUser(tx.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE lower(email) = lower($1)`, email)); err != nil {
			return err
		}
		return mapErr(tx.QueryRow(ctx, `INSERT INTO password_resets (token_hash, user_id, expires_at)
			VALUES ($1, $2, now() + make_interval(secs => $3)) RETURNING expires_at`,
			tokenHash, u.ID, ttl.Seconds()).Scan(&exp))
	})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("password reset for %q: %w", email, err)
	}
	return u, exp.UTC(), nil
}

// PasswordResetUser returns the account of a live (unexpired, unused)
// token; any other token is link.ErrNotFound.
func (s *Store) PasswordResetUser(ctx context.Context, tokenHash []byte) (*link.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users
		WHERE id = (SELECT user_id FROM password_resets WHERE token_hash = $1 AND expires_at > now())`, tokenHash))
	if err != nil {
		return nil, fmt.Errorf("password reset: %w", err)
	}
	return u, nil
}

// ResetPassword spends a live token: in one transaction it deletes the
// token (so of two concurrent uses one wins and the other finds nothing),
// sets the account's password hash, and deletes the account's other reset
// tokens and all its sessions. A token that is unknown, expired or spent
// is link.ErrNotFound and changes nothing.
func (s *Store) ResetPassword(ctx context.Context, tokenHash []byte, passwordHash string) (*link.User, error) {
	var u *link.User
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var userID int64
		err := tx.QueryRow(ctx, `DELETE FROM password_resets WHERE token_hash = $1 AND expires_at > now() RETURNING user_id`,
			tokenHash).Scan(&userID)
		if err != nil {
			return mapErr(err)
		}
		if u, err = scanUser(tx.QueryRow(ctx, `UPDATE users SET password_hash = $2 WHERE id = $1 RETURNING `+userColumns,
			userID, passwordHash)); err != nil {
			return err
		}
		for _, q := range []string{`DELETE FROM password_resets WHERE user_id = $1`, `DELETE FROM sessions WHERE user_id = $1`} {
			if _, err := tx.Exec(ctx, q, userID); err != nil {
				return mapErr(err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reset password: %w", err)
	}
	return u, nil
}

package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"kurz/shared/link"
)

// Dashboard sessions (migration 0034). The browser holds a random session
// id; the table holds its SHA-256 (the caller hashes), so reading the
// table signs nobody in. Expiry runs on the database clock, like the rate
// limits, so every admin process agrees on it.

// Session is a live session and its account.
type Session struct {
	User      *link.User
	CreatedAt time.Time
	ExpiresAt time.Time
}

// CreateSession stores a session of userID, valid for ttl.
func (s *Store) CreateSession(ctx context.Context, idHash []byte, userID int64, ttl time.Duration) (time.Time, error) {
	var exp time.Time
	err := s.pool.QueryRow(ctx, `INSERT INTO sessions (id_hash, user_id, expires_at)
		VALUES ($1, $2, now() + make_interval(secs => $3)) RETURNING expires_at`,
		idHash, userID, ttl.Seconds()).Scan(&exp)
	if err != nil {
		return time.Time{}, fmt.Errorf("create session of user %d: %w", userID, mapErr(err))
	}
	return exp.UTC(), nil
}

// sessionSQL loads a live session and its account; the CTE renames the
// session's times, which users has too.
const sessionSQL = `WITH sx AS (
	SELECT user_id, created_at AS s_created, expires_at AS s_expires
	FROM sessions WHERE id_hash = $1 AND expires_at > now())
SELECT ` + userColumns + `, s_created, s_expires FROM users JOIN sx ON sx.user_id = users.id`

// SessionByHash returns the live session with this id hash; an unknown or
// expired one is link.ErrNotFound.
func (s *Store) SessionByHash(ctx context.Context, idHash []byte) (*Session, error) {
	var u link.User
	var sess Session
	err := s.pool.QueryRow(ctx, sessionSQL, idHash).Scan(append(userFields(&u), &sess.CreatedAt, &sess.ExpiresAt)...)
	if err != nil {
		return nil, fmt.Errorf("session: %w", mapErr(err))
	}
	utcUser(&u)
	sess.User = &u
	sess.CreatedAt, sess.ExpiresAt = sess.CreatedAt.UTC(), sess.ExpiresAt.UTC()
	return &sess, nil
}

// ExtendSession moves a live session's expiry to now + idle, but never
// past its start + maxAge, and returns the new expiry. An unknown or
// expired session is link.ErrNotFound.
func (s *Store) ExtendSession(ctx context.Context, idHash []byte, idle, maxAge time.Duration) (time.Time, error) {
	var exp time.Time
	err := s.pool.QueryRow(ctx, `UPDATE sessions
		SET expires_at = least(created_at + make_interval(secs => $3), now() + make_interval(secs => $2))
		WHERE id_hash = $1 AND expires_at > now() RETURNING expires_at`,
		idHash, idle.Seconds(), maxAge.Seconds()).Scan(&exp)
	if err != nil {
		return time.Time{}, fmt.Errorf("extend session: %w", mapErr(err))
	}
	return exp.UTC(), nil
}

// DeleteSession ends one session (sign-out); an unknown one is no error.
func (s *Store) DeleteSession(ctx context.Context, idHash []byte) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE id_hash = $1`, idHash); err != nil {
		return fmt.Errorf("delete session: %w", mapErr(err))
	}
	return nil
}

// PruneSessions deletes expired sessions and password reset tokens; both
// are refused once expired, so this only bounds the tables.
func (s *Store) PruneSessions(ctx context.Context) (int64, error) {
	var n int64
	for _, q := range []string{
		`DELETE FROM sessions WHERE expires_at <= now()`,
		`DELETE FROM password_resets WHERE expires_at <= now()`,
	} {
		tag, err := s.pool.Exec(ctx, q)
		if err != nil {
			return n, fmt.Errorf("prune sessions: %w", mapErr(err))
		}
		n += tag.RowsAffected()
	}
	return n, nil
}

// LoginUser finds the account a sign-in names, by email or by username
// (both case-insensitive; a username never contains '@', an email always
// does, so one value cannot match two accounts), and returns it with its
// password hash ("" = no password: the account cannot sign in).
func (s *Store) LoginUser(ctx context.Context, login string) (*link.User, string, error) {
	col := "username"
	if strings.Contains(login, "@") {
		col = "email"
	}
	// col is one of two fixed names, never input.
	var u link.User
	var hash string
	err := s.pool.QueryRow(ctx, `SELECT `+userColumns+`, password_hash FROM users WHERE lower(`+col+`) = lower($1)`, login).
		Scan(append(userFields(&u), &hash)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, "", fmt.Errorf("login %q: %w", login, link.ErrNotFound)
	}
	if err != nil {
		return nil, "", fmt.Errorf("login %q: %w", login, mapErr(err))
	}
	utcUser(&u)
	return &u, hash, nil
}

// PasswordHash returns the account's password hash ("" = none), for
// checks of the current password before a change.
func (s *Store) PasswordHash(ctx context.Context, userID int64) (string, error) {
	var hash string
	if err := s.pool.QueryRow(ctx, `SELECT password_hash FROM users WHERE id = $1`, userID).Scan(&hash); err != nil {
		return "", fmt.Errorf("password of user %d: %w", userID, mapErr(err))
	}
	return hash, nil
}

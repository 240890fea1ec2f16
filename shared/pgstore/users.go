package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"kurz/shared/link"
)

const userColumns = `id, email, username, avatar, plan, rate_limit, is_operator, expires_at, created_at`

func scanUser(row pgx.Row) (*link.User, error) {
	u, err := scanUserRaw(row)
	return u, mapErr(err)
}

// scanUserRaw is scanUser without mapping the driver error, for callers
// that need to tell which unique index a conflict hit.
func scanUserRaw(row pgx.Row) (*link.User, error) {
	var u link.User
	if err := row.Scan(userFields(&u)...); err != nil {
		return nil, err
	}
	utcUser(&u)
	return &u, nil
}

// userFields are the scan destinations of userColumns, for queries that
// select more columns after them.
func userFields(u *link.User) []any {
	return []any{&u.ID, &u.Email, &u.Username, &u.Avatar, &u.Plan, &u.RateLimit, &u.IsOperator, &u.ExpiresAt, &u.CreatedAt}
}

// utcUser puts a scanned user's times in UTC.
func utcUser(u *link.User) {
	u.CreatedAt = u.CreatedAt.UTC()
	if u.ExpiresAt != nil {
		t := u.ExpiresAt.UTC()
		u.ExpiresAt = &t
	}
}

// NewUser is what CreateUser needs.
type NewUser struct {
	Email        string
	Username     string
	PasswordHash string
	Plan         string
	RateLimit    *int
	IsOperator   bool
	ExpiresAt    *time.Time
	APIKeyHash   []byte
}

// Conflicts of CreateUser and RegisterUser; both wrap link.ErrConflict.
var (
	ErrEmailTaken    = fmt.Errorf("email already used by another account: %w", link.ErrConflict)
	ErrUsernameTaken = fmt.Errorf("username already taken: %w", link.ErrConflict)
)

// CreateUser inserts an account. A taken email or username (compared
// case-insensitively) is ErrEmailTaken or ErrUsernameTaken.
func (s *Store) CreateUser(ctx context.Context, n NewUser) (*link.User, error) {
	u, err := insertUser(ctx, s.pool, n, nil)
	if err != nil {
		return nil, fmt.Errorf("create user %q: %w", n.Username, err)
	}
	return u, nil
}

// RegisterUser inserts a self-registered account. With a non-nil
// inviteHash it first takes one use of that invite in the same
// transaction: a registration that fails (say, a taken email) uses
// nothing, and the row lock on the invite serialises concurrent
// registrations, so a code is never used more often than allowed.
// Refusals are ErrInviteUnknown, ErrInviteExpired, ErrInviteUsedUp,
// ErrEmailTaken and ErrUsernameTaken.
func (s *Store) RegisterUser(ctx context.Context, n NewUser, inviteHash []byte) (*link.User, error) {
	var u *link.User
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var inviteID *int64
		if inviteHash != nil {
			id, err := useInvite(ctx, tx, inviteHash)
			if err != nil {
				return err
			}
			inviteID = &id
		}
		var err error
		u, err = insertUser(ctx, tx, n, inviteID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("register user %q: %w", n.Username, err)
	}
	return u, nil
}

// queryRower is a pool or a transaction.
type queryRower interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func insertUser(ctx context.Context, q queryRower, n NewUser, inviteID *int64) (*link.User, error) {
	u, err := scanUserRaw(q.QueryRow(ctx, `INSERT INTO users (email, username, password_hash, plan, rate_limit, is_operator, expires_at, api_key_hash, invite_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING `+userColumns,
		n.Email, n.Username, n.PasswordHash, n.Plan, n.RateLimit, n.IsOperator, n.ExpiresAt, n.APIKeyHash, inviteID))
	switch {
	case IsUniqueViolation(err, "users_email_key"):
		return nil, ErrEmailTaken
	case IsUniqueViolation(err, "users_username_key"):
		return nil, ErrUsernameTaken
	case err != nil:
		return nil, mapErr(err)
	}
	return u, nil
}

// UserByKeyHash finds the account owning an API key.
func (s *Store) UserByKeyHash(ctx context.Context, hash []byte) (*link.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE api_key_hash = $1`, hash))
	if err != nil {
		return nil, fmt.Errorf("user by key: %w", err)
	}
	return u, nil
}

// UserByID loads one account.
func (s *Store) UserByID(ctx context.Context, id int64) (*link.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("user %d: %w", id, err)
	}
	return u, nil
}

// UserByUsername loads one account by username (case-insensitive).
func (s *Store) UserByUsername(ctx context.Context, username string) (*link.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE lower(username) = lower($1)`, username))
	if err != nil {
		return nil, fmt.Errorf("user %q: %w", username, err)
	}
	return u, nil
}

// RotateKeyByEmail replaces the API key of the account with this email
// (case-insensitive) and returns the account; an unknown email is
// ErrNotFound.
func (s *Store) RotateKeyByEmail(ctx context.Context, email string, hash []byte) (*link.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `UPDATE users SET api_key_hash = $2 WHERE lower(email) = lower($1) RETURNING `+userColumns, email, hash))
	if err != nil {
		return nil, fmt.Errorf("rotate key of %q: %w", email, err)
	}
	return u, nil
}

// UpdateAccount changes the email and/or password hash (nil = keep). A
// new password signs the account out of every dashboard session in the
// same transaction, whichever way it was changed (API or dashboard): a
// password is changed because someone else may know it.
func (s *Store) UpdateAccount(ctx context.Context, id int64, email, passwordHash *string) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE users SET email = coalesce($2, email), password_hash = coalesce($3, password_hash) WHERE id = $1`,
			id, email, passwordHash)
		if err != nil {
			return mapErr(err)
		}
		if tag.RowsAffected() == 0 {
			return link.ErrNotFound
		}
		if passwordHash == nil {
			return nil
		}
		_, err = tx.Exec(ctx, `DELETE FROM sessions WHERE user_id = $1`, id)
		return mapErr(err)
	})
	if err != nil {
		return fmt.Errorf("update account %d: %w", id, err)
	}
	return nil
}

// SetAPIKey gives the account a new API key (the dashboard's rotation: the
// session, not the old key, proves who asks). The old key stops working
// at once because lookups go by hash.
func (s *Store) SetAPIKey(ctx context.Context, id int64, hash []byte) error {
	tag, err := s.pool.Exec(ctx, `UPDATE users SET api_key_hash = $2 WHERE id = $1`, id, hash)
	if err != nil {
		return fmt.Errorf("set key of %d: %w", id, mapErr(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("set key of %d: %w", id, link.ErrNotFound)
	}
	return nil
}

// ErrKeyRotated is RotateAPIKey's answer when the account's key is no
// longer the one the caller presented: another rotation won.
var ErrKeyRotated = errors.New("the API key was rotated by a concurrent request")

// RotateAPIKey replaces the account's key with newHash if, and only if,
// its key is still oldHash (compare and swap), so of parallel rotations
// with one key exactly one takes effect and the others get ErrKeyRotated:
// no caller is handed a key that another rotation already replaced. The
// old key stops working at once because lookups go by hash.
func (s *Store) RotateAPIKey(ctx context.Context, id int64, oldHash, newHash []byte) error {
	tag, err := s.pool.Exec(ctx, `UPDATE users SET api_key_hash = $3 WHERE id = $1 AND api_key_hash = $2`, id, oldHash, newHash)
	if err != nil {
		return fmt.Errorf("rotate key of %d: %w", id, mapErr(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("rotate key of %d: %w", id, ErrKeyRotated)
	}
	return nil
}

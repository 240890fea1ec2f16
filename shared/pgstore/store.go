// Package pgstore is kurz's PostgreSQL store: the only package that imports
// pgx. It returns shared/link types and sentinel errors, never pgx types.
// Each area (users, rate limits, links, …) keeps its SQL in its own file.
package pgstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"kurz/shared/link"
)

// Store wraps a connection pool.
type Store struct {
	pool *pgxpool.Pool
}

// Open connects to dsn and checks the connection.
func Open(ctx context.Context, dsn string) (*Store, error) {
	s, err := Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.pool.Ping(pctx); err != nil {
		s.pool.Close()
		return nil, fmt.Errorf("ping database: %w", err)
	}
	return s, nil
}

// Connect makes a pool for dsn without waiting for the server: its
// connections are made on first use (the edge's read replica, which may
// come up after the edge).
func Connect(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	return &Store{pool: pool}, nil
}

// New wraps an existing pool (pgtest). No accessor gives the pool back:
// everything outside this package reaches PostgreSQL through the Store's
// methods (tests write fixtures through pgtest.Pool).
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return mapErr(err)
	}
	return nil
}

// mapErr turns pgx errors into link sentinels where one fits.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return link.ErrNotFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return fmt.Errorf("%w: %s", link.ErrConflict, pgErr.ConstraintName)
	}
	// 22021 invalid byte sequence (NUL in text), 22P05 untranslatable
	// character (NUL in jsonb), 22P02 with a Unicode escape jsonb refuses.
	if errors.As(err, &pgErr) && (pgErr.Code == "22021" || pgErr.Code == "22P05" ||
		pgErr.Code == "22P02" && strings.Contains(pgErr.Message, "Unicode")) {
		return fmt.Errorf("%w: %s", link.ErrUnstorable, pgErr.Message)
	}
	if isUnavailable(err) {
		return fmt.Errorf("%w: %v", link.ErrUnavailable, err)
	}
	return err
}

func isUnavailable(err error) bool {
	var netErr net.Error
	var connErr *pgconn.ConnectError
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) ||
		errors.As(err, &connErr) || pgconn.SafeToRetry(err)
}

// IsUniqueViolation reports whether err is a conflict on the named unique
// constraint or index (any, when name is "").
func IsUniqueViolation(err error, name string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && (name == "" || pgErr.ConstraintName == name)
}

// inTx runs fn in a transaction, committing on success.
func (s *Store) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return mapErr(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	if err := fn(tx); err != nil {
		return err
	}
	return mapErr(tx.Commit(ctx))
}

package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"kurz/shared/link"
)

const domainColumns = `id, user_id, host, domain, redirect_root, redirect_404, created_at`

func scanDomain(row pgx.Row) (link.Domain, error) {
	var d link.Domain
	err := row.Scan(&d.ID, &d.UserID, &d.Host, &d.Domain, &d.RedirectRoot, &d.Redirect404, &d.CreatedAt)
	d.CreatedAt = d.CreatedAt.UTC()
	return d, mapErr(err)
}

// ListDomains returns one page of the user's domains, newest first, and the
// user's total number of domains.
func (s *Store) ListDomains(ctx context.Context, userID int64, limit, offset int) ([]link.Domain, int, error) {
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM domains WHERE user_id = $1`, userID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count domains of %d: %w", userID, mapErr(err))
	}
	rows, err := s.pool.Query(ctx, `SELECT `+domainColumns+` FROM domains WHERE user_id = $1
		ORDER BY id DESC LIMIT $2 OFFSET $3`, userID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list domains of %d: %w", userID, mapErr(err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (link.Domain, error) { return scanDomain(r) })
	if err != nil {
		return nil, 0, fmt.Errorf("list domains of %d: %w", userID, mapErr(err))
	}
	return out, total, nil
}

// DomainByID loads one of the user's domains.
func (s *Store) DomainByID(ctx context.Context, userID, id int64) (link.Domain, error) {
	d, err := scanDomain(s.pool.QueryRow(ctx, `SELECT `+domainColumns+` FROM domains WHERE id = $1 AND user_id = $2`, id, userID))
	if err != nil {
		return d, fmt.Errorf("domain %d: %w", id, err)
	}
	return d, nil
}

// DomainByHost loads the user's domain with the given host key (as from
// link.ParseDomain).
func (s *Store) DomainByHost(ctx context.Context, userID int64, host string) (link.Domain, error) {
	d, err := scanDomain(s.pool.QueryRow(ctx, `SELECT `+domainColumns+` FROM domains WHERE host = $1 AND user_id = $2`, host, userID))
	if err != nil {
		return d, fmt.Errorf("domain %q: %w", host, err)
	}
	return d, nil
}

// CreateDomain inserts d (UserID, Host, Domain, redirects) and returns its
// id. A host registered by anyone is ErrConflict.
func (s *Store) CreateDomain(ctx context.Context, d link.Domain) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `INSERT INTO domains (user_id, host, domain, redirect_root, redirect_404)
		VALUES ($1, $2, $3, $4, $5) RETURNING id`, d.UserID, d.Host, d.Domain, d.RedirectRoot, d.Redirect404).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("create domain %q: %w", d.Host, mapErr(err))
	}
	return id, nil
}

// UpdateDomain changes the redirects that are non-nil ("" clears one).
func (s *Store) UpdateDomain(ctx context.Context, userID, id int64, redirectRoot, redirect404 *string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE domains SET redirect_root = coalesce($3, redirect_root),
		redirect_404 = coalesce($4, redirect_404) WHERE id = $1 AND user_id = $2`, id, userID, redirectRoot, redirect404)
	if err != nil {
		return fmt.Errorf("update domain %d: %w", id, mapErr(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("update domain %d: %w", id, link.ErrNotFound)
	}
	return nil
}

// DeleteDomain removes one of the user's domains. While short links use it
// the answer is *link.InUseError with their number and nothing changes
// (links.domain_id is ON DELETE RESTRICT; a link added concurrently makes
// the delete fail the same way).
func (s *Store) DeleteDomain(ctx context.Context, userID, id int64) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// FOR UPDATE blocks concurrent link inserts referencing the row
		// (they take FOR KEY SHARE) until this transaction ends.
		var found int64
		if err := tx.QueryRow(ctx, `SELECT id FROM domains WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID).Scan(&found); err != nil {
			return mapErr(err)
		}
		var n int64
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM links WHERE domain_id = $1`, id).Scan(&n); err != nil {
			return mapErr(err)
		}
		if n > 0 {
			return &link.InUseError{N: n}
		}
		_, err := tx.Exec(ctx, `DELETE FROM domains WHERE id = $1`, id)
		if isForeignKeyViolation(err) {
			return &link.InUseError{N: 1}
		}
		return mapErr(err)
	})
	if err != nil {
		return fmt.Errorf("delete domain %d: %w", id, err)
	}
	return nil
}

func isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}

// hostNameSQL is link.HostName of domains.host in SQL: the host without
// its port. It is the expression of the unique index domains_name_key
// (migration 0021), so lookups by it use that index.
const hostNameSQL = `regexp_replace(host, ':[0-9]+$', '')`

// OwnHostNames returns those of names (host names without a port, lower
// case ASCII) that are names of the user's own branded domains. Only the
// caller's domains matter: a host someone else registers must not change
// what the caller's links may point to.
func (s *Store) OwnHostNames(ctx context.Context, userID int64, names []string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+hostNameSQL+` FROM domains
		WHERE user_id = $1 AND `+hostNameSQL+` = ANY($2)`, userID, names)
	if err != nil {
		return nil, fmt.Errorf("own host names of %d: %w", userID, mapErr(err))
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("own host names of %d: %w", userID, mapErr(err))
	}
	return found, nil
}

// DomainsOf returns all of the user's domains, oldest first (for checks
// across them, such as redirect loops).
func (s *Store) DomainsOf(ctx context.Context, userID int64) ([]link.Domain, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+domainColumns+` FROM domains WHERE user_id = $1 ORDER BY id`, userID)
	if err != nil {
		return nil, fmt.Errorf("domains of %d: %w", userID, mapErr(err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (link.Domain, error) { return scanDomain(r) })
	if err != nil {
		return nil, fmt.Errorf("domains of %d: %w", userID, mapErr(err))
	}
	return out, nil
}

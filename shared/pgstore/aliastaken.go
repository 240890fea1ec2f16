package pgstore

import (
	"context"
	"fmt"
)

// AliasTaken reports whether a link (host, alias) exists; host is "" for
// the default domain. It answers the dashboard's alias check as you type:
// one index probe (links_host_alias_key), nothing of the link is read.
func (s *Store) AliasTaken(ctx context.Context, host, alias string) (bool, error) {
	var taken bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM links WHERE host = $1 AND alias = $2)`, host, alias).Scan(&taken)
	if err != nil {
		return false, fmt.Errorf("alias %q/%q taken: %w", host, alias, mapErr(err))
	}
	return taken, nil
}

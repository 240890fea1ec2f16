package stats

import (
	"context"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// Totals is a list row's numbers (chstore.Totals).
type Totals = chstore.Totals

// Ranked is an owner's clicked targets, most clicked first (chstore.Ranked).
type Ranked = chstore.Ranked

// Totals returns the all-time clicks (and, with uniques, unique clicks) of
// each id in one query, from the table Summary reads: a list row and the
// target's own response agree. ids nobody visited have zero Totals. At most
// chstore.MaxTotalsIDs ids (a list page).
func (s *Service) Totals(ctx context.Context, kind click.Kind, ids []int64, uniques bool) (map[int64]Totals, error) {
	return chstore.ReadTotals(ctx, s.conn, kind, ids, uniques)
}

// Ranking returns owner's clicked targets of kind, most clicked first: the
// order of a list sorted by clicks.
func (s *Service) Ranking(ctx context.Context, kind click.Kind, owner int64, limit int) (Ranked, error) {
	return chstore.ReadRanking(ctx, s.conn, kind, owner, limit)
}

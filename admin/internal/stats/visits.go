package stats

import (
	"context"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// RangeVisits is people's device classes and the visits that were not
// people over a range (the dashboard's statistics page).
type RangeVisits = chstore.RangeVisits

// Visits returns the RangeVisits of one target over the whole UTC days
// from..to.
func (s *Service) Visits(ctx context.Context, kind click.Kind, id int64, from, to time.Time) (RangeVisits, error) {
	return chstore.ReadRangeVisits(ctx, s.conn, kind, id, midnight(from), midnight(to).AddDate(0, 0, 1))
}

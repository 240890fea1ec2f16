package stats

import (
	"context"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// Countries returns the human clicks of one target per country code over
// the whole UTC days from..to, every country (a Range's breakdown keeps
// the top TopN): what the dashboard's world map colours.
func (s *Service) Countries(ctx context.Context, kind click.Kind, id int64, from, to time.Time) ([]Count, error) {
	return chstore.ReadRangeCountries(ctx, s.conn, kind, id, midnight(from), midnight(to).AddDate(0, 0, 1))
}

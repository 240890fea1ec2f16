package stats

import (
	"context"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// OwnerWindows is an owner's clicks today, over 7 and over 30 days
// (chstore.OwnerWindows).
type OwnerWindows = chstore.OwnerWindows

// OwnerWindows returns owner's human clicks of kind in the windows ending
// at now: the dashboard home page's totals.
func (s *Service) OwnerWindows(ctx context.Context, kind click.Kind, owner int64, now time.Time) (OwnerWindows, error) {
	return chstore.ReadOwnerWindows(ctx, s.conn, kind, owner, now)
}

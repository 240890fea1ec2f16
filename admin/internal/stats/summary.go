package stats

import (
	"context"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// Summary returns the all-time stats of the link (click.KindLink) or QR
// code (click.KindQR) with id. An id nobody visited has all zeros. The
// queries live in shared/chstore (ReadSummary), shared with the edge's
// public stats page.
func (s *Service) Summary(ctx context.Context, kind click.Kind, id int64) (*Summary, error) {
	return chstore.ReadSummary(ctx, s.conn, kind, id)
}

// Counts returns the all-time visits by class of one target
// (chstore.ReadCounts): a Summary's counters without its distinct
// visitors and breakdowns, for a page that shows only those.
func (s *Service) Counts(ctx context.Context, kind click.Kind, id int64) (Counts, error) {
	return chstore.ReadCounts(ctx, s.conn, kind, id)
}

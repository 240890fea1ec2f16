package api

import (
	"context"

	"kurz/shared/click"
)

// qrStatsData is the "data" object of the single-QR response (spec 2.11):
// all-time human scans of the code (kind qr in ClickHouse), then the
// extensions of the single-link response (botClicks, previewClicks,
// prefetchClicks, freshness). Unlike the single-link response, whose spec
// says "or 0 when empty", spec 2.11 types the top-N lists as objects (name
// to count as a string), so an empty one is {} — never 0 or null.
func (s *Server) qrStatsData(ctx context.Context, qrID int64) (map[string]any, error) {
	return s.statsData(ctx, click.KindQR, qrID, qrSocialKeys, stringCounts)
}

package api

import "context"

// qrStatsData is the "data" object of the single-QR response (spec 2.11).
// Until the scan analytics are wired in it returns the real values for a
// code nobody has counted yet: zero counts, and empty objects for the top-N
// lists. Unlike the single-link response, whose spec says "or 0 when
// empty", spec 2.11 types the top-N lists as objects (name to count as a
// string), so an empty one is {} — never 0 or null. The analytics work
// replaces the body with ClickHouse queries for qrID, keeping these types.
func (s *Server) qrStatsData(ctx context.Context, qrID int64) (map[string]any, error) {
	_, _ = ctx, qrID
	return map[string]any{
		"clicks":       0,
		"uniqueClicks": 0,
		"topCountries": map[string]string{},
		"topReferrers": map[string]string{},
		"topBrowsers":  map[string]string{},
		"topOs":        map[string]string{},
		"socialCount":  map[string]int{"socialnetwork": 0, "microblog": 0, "photosharing": 0},
	}, nil
}

package api

import "context"

// linkStatsData is the "data" object of the single-link response (spec
// 2.9). Until the click analytics are wired in it returns the real values
// for a link nobody has counted yet: zero counts, and the integer 0 that
// the spec prescribes for empty top-N lists. The analytics work replaces
// the body with ClickHouse queries for linkID.
func (s *Server) linkStatsData(ctx context.Context, linkID int64) (map[string]any, error) {
	_, _ = ctx, linkID
	return map[string]any{
		"clicks":       0,
		"uniqueClicks": 0,
		"topCountries": 0,
		"topReferrers": 0,
		"topBrowsers":  0,
		"topOs":        0,
		"socialCount":  map[string]int{"socialnetwork": 0, "microblog": 0, "searchengine": 0},
	}, nil
}

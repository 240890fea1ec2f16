package api

import (
	"context"
	"strconv"

	"golang.org/x/sync/errgroup"

	"kurz/admin/internal/stats"
	"kurz/shared/click"
	"kurz/shared/link"
)

// Referrer categories each response's socialCount reports (spec 2.9, 2.11).
var (
	linkSocialKeys = []string{"socialnetwork", "microblog", "searchengine"}
	qrSocialKeys   = []string{"socialnetwork", "microblog", "photosharing"}
)

// linkStatsData is the "data" object of the single-link response (spec
// 2.9): all-time human clicks of the link, then the documented extensions
// botClicks, previewClicks, prefetchClicks and freshness. Top-N lists are
// objects of name to integer count, or the integer 0 when empty, as the
// spec says.
func (s *Server) linkStatsData(ctx context.Context, linkID int64) (map[string]any, error) {
	return s.statsData(ctx, click.KindLink, linkID, linkSocialKeys, intCounts)
}

// linkUniques reads the unique visitors of a list page's links in one
// ClickHouse query (GET /api/urls?with=uniqueClicks; a page is at most
// MaxLimit links, within chstore.MaxUniqueIDs); without a stats service
// (tests of other areas) every link has 0.
func (s *Server) linkUniques(ctx context.Context, links []link.Link) (map[int64]uint64, error) {
	if s.stats == nil {
		return map[int64]uint64{}, nil
	}
	ids := make([]int64, len(links))
	for i := range links {
		ids[i] = links[i].ID
	}
	return s.stats.UniqueClicks(ctx, click.KindLink, ids)
}

// statsData builds a data block for kind/id. Without a stats service (tests
// of other areas) it reports a target nobody visited, with the spec's keys
// only.
func (s *Server) statsData(ctx context.Context, kind click.Kind, id int64, social []string, counts func([]stats.Count) any) (map[string]any, error) {
	sum := &stats.Summary{}
	var fresh *stats.Freshness
	if s.stats != nil {
		// Two independent ClickHouse reads, side by side.
		fresh = &stats.Freshness{}
		g, gctx := errgroup.WithContext(ctx)
		g.Go(func() (err error) {
			sum, err = s.stats.Summary(gctx, kind, id)
			return err
		})
		g.Go(func() (err error) {
			*fresh, err = s.stats.Freshness(gctx)
			return err
		})
		if err := g.Wait(); err != nil {
			return nil, err
		}
	}
	data := map[string]any{
		"clicks":       sum.Clicks,
		"uniqueClicks": sum.UniqueClicks,
		"topCountries": counts(sum.Countries),
		"topReferrers": counts(sum.Referrers),
		"topBrowsers":  counts(sum.Browsers),
		"topOs":        counts(sum.OS),
		"socialCount":  socialCount(sum.Categories, social),
	}
	if fresh != nil { // extensions: only with a stats source to account for
		data["botClicks"] = sum.BotClicks
		data["previewClicks"] = sum.PreviewClicks
		data["prefetchClicks"] = sum.PrefetchClicks
		data["freshness"] = freshnessJSON(*fresh)
	}
	return data, nil
}

// intCounts is a top-N list of the single-link response: name to integer
// count, or the integer 0 when empty (spec 2.9).
func intCounts(cs []stats.Count) any {
	if len(cs) == 0 {
		return 0
	}
	m := make(map[string]uint64, len(cs))
	for _, c := range cs {
		m[c.Name] = c.N
	}
	return m
}

// stringCounts is a top-N list of the single-QR response: name to count as
// a decimal string (spec 2.11); empty is {} (the QR response's documented
// choice: 2.11 types the lists as objects).
func stringCounts(cs []stats.Count) any {
	m := make(map[string]string, len(cs))
	for _, c := range cs {
		m[c.Name] = strconv.FormatUint(c.N, 10)
	}
	return m
}

// socialCount reports the human clicks of each category in keys, zero when
// none.
func socialCount(byCategory map[string]uint64, keys []string) map[string]uint64 {
	m := make(map[string]uint64, len(keys))
	for _, k := range keys {
		m[k] = byCategory[k]
	}
	return m
}

func freshnessJSON(f stats.Freshness) map[string]any {
	return map[string]any{
		"ingestedUntil": link.FormatTime(f.IngestedUntil),
		"lagMs":         f.LagMs,
	}
}

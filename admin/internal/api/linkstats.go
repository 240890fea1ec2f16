package api

import (
	"context"
	"errors"
	"strconv"

	"kurz/admin/internal/stats"
	"kurz/shared/click"
	"kurz/shared/link"
	"kurz/shared/pgstore"
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

// pageTotals reads the numbers of a list page's targets in one ClickHouse
// query (a page is at most MaxLimit rows, within chstore.MaxTotalsIDs),
// from the table the single-target response reads, so a row and its
// target's own response always agree. Without a stats service (tests of
// other areas) every target has zero.
func (s *Server) pageTotals(ctx context.Context, kind click.Kind, ids []int64, uniques bool) (map[int64]stats.Totals, error) {
	if s.stats == nil {
		return map[int64]stats.Totals{}, nil
	}
	return s.stats.Totals(ctx, kind, ids, uniques)
}

// rankingPrefix is the least of the ranking read at once: the cost of a
// read is the owner's whole sum either way, so a longer prefix saves
// re-reads when ranked links are deleted or do not match a search.
const rankingPrefix = 1000

// clickRanking is the order of a link list sorted by clicks: the owner's
// clicked links from ClickHouse, most first, at least the first need of
// them (pgstore reads further when its walk needs more). Without a stats
// service nothing was clicked.
func (s *Server) clickRanking(ctx context.Context, owner int64, need int) (*pgstore.ClickRanking, error) {
	if s.stats == nil {
		return &pgstore.ClickRanking{Complete: true}, nil
	}
	n := max(2*need, rankingPrefix)
	r, err := s.stats.Ranking(ctx, click.KindLink, owner, n)
	if err != nil {
		return nil, err
	}
	return &pgstore.ClickRanking{
		IDs: r.IDs, Clicks: r.Clicks, Complete: len(r.IDs) < n,
		Extend: func(ctx context.Context, more int) (*pgstore.ClickRanking, error) {
			return s.clickRanking(ctx, owner, more)
		},
	}, nil
}

// LinkRanking is the order of owner's links by clicks, for a list sorted
// so (the API's order=click, the dashboard's table) whose page ends at
// position need. up is false, with no error, when ClickHouse cannot be
// read: the list then comes newest first.
func (s *Server) LinkRanking(ctx context.Context, owner int64, need int) (rank *pgstore.ClickRanking, up bool, err error) {
	rank, err = s.clickRanking(ctx, owner, need)
	if statsDown(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return rank, true, nil
}

// LinkRankingHint is the ids at positions from..to of owner's link ranking
// as last read (the next ranking most likely holds the same there), or nil
// when none is kept.
func (s *Server) LinkRankingHint(owner int64, from, to int) []int64 {
	if s.stats == nil {
		return nil
	}
	return s.stats.RankingHint(click.KindLink, owner, from, to)
}

// LinkTotals reads the clicks (and with uniques, unique clicks) of a page
// of links in one query, as GET /api/urls shows them. up is false, with no
// error, when ClickHouse cannot be read: the page then shows no numbers,
// never zeros.
func (s *Server) LinkTotals(ctx context.Context, links []link.Link, uniques bool) (totals map[int64]stats.Totals, up bool, err error) {
	ids := make([]int64, len(links))
	for i := range links {
		ids[i] = links[i].ID
	}
	return s.LinkTotalsOf(ctx, ids, uniques)
}

// LinkTotalsOf is LinkTotals of link ids (at most a list page's).
func (s *Server) LinkTotalsOf(ctx context.Context, ids []int64, uniques bool) (totals map[int64]stats.Totals, up bool, err error) {
	totals, err = s.pageTotals(ctx, click.KindLink, ids, uniques)
	if statsDown(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return totals, true, nil
}

// statsDown tells a read that ClickHouse cannot answer now (err wraps
// link.ErrUnavailable) from any other failure. Responses that carry
// records as well as numbers still answer 200 then: the records are in
// PostgreSQL. Their numbers are null and statsAvailable is false, never a
// made-up 0 (docs/api.md, "When the numbers are unavailable").
func statsDown(err error) bool { return errors.Is(err, link.ErrUnavailable) }

// count is a number for a response, or null when the stats are down.
func count(up bool, n uint64) any {
	if !up {
		return nil
	}
	return n
}

// statsData builds a data block for kind/id. Without a stats service (tests
// of other areas) it reports a target nobody visited, with the spec's keys
// only. When ClickHouse is unreachable every number is null and
// statsAvailable is false.
func (s *Server) statsData(ctx context.Context, kind click.Kind, id int64, social []string, counts func([]stats.Count) any) (map[string]any, error) {
	sum := &stats.Summary{}
	var fresh *stats.Freshness
	if s.stats != nil {
		// The freshness first: it must not claim clicks the summary missed
		// (stats.Service.RecentFreshness).
		f, err := s.stats.RecentFreshness(ctx)
		if err == nil {
			fresh = &f
			sum, err = s.stats.Summary(ctx, kind, id)
		}
		if statsDown(err) {
			return unavailableData(), nil
		} else if err != nil {
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
		data["statsAvailable"] = true
	}
	return data, nil
}

// unavailableData is the data block while ClickHouse cannot be read: the
// same keys, every number null.
func unavailableData() map[string]any {
	data := map[string]any{"statsAvailable": false}
	for _, k := range []string{"clicks", "uniqueClicks", "topCountries", "topReferrers", "topBrowsers", "topOs",
		"socialCount", "botClicks", "previewClicks", "prefetchClicks", "freshness"} {
		data[k] = nil
	}
	return data
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

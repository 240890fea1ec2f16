package stats

import (
	"cmp"
	"context"
	"slices"

	"golang.org/x/sync/errgroup"

	"kurz/shared/click"
	"kurz/shared/target"
)

// totalsSQL reads the all-time counters of one target (0002). On an
// unknown target it returns one row of zeros: aggregates without GROUP BY
// always answer.
const totalsSQL = `SELECT countIfMerge(humans), uniqIfMerge(visitors), countIfMerge(bots),
	countIfMerge(previews), countIfMerge(prefetches)
FROM click_totals WHERE kind = ? AND target_id = ?`

// dimsSelect is the breakdown query over click_dims_total (0004) or, for a
// date range, over the raw clicks of that range (rangeDimsFrom).
// Names are mapped in SQL so that the top-N cut and its tie-break (count
// descending, then name) happen on the names the API shows; countries are
// mapped to names in Go (toCounts), which is why LIMIT BY keeps up to 1000
// values per dimension: more than every two-letter code, so a country's
// rank is decided on all of them; for referrers the SQL order already is
// the final one. Dimensions device and language are not reported.
const dimsSelect = `SELECT dim, multiIf(dim = 'referrer' AND value = '', 'direct', value = '', 'unknown', value) AS name,
	sum(hits) AS n
FROM `

const dimsWhere = ` WHERE kind = ? AND target_id = ? AND dim IN ('country', 'referrer', 'browser', 'os', 'category')`

const dimsTail = ` GROUP BY dim, name HAVING n > 0 ORDER BY dim, n DESC, name LIMIT 1000 BY dim`

// Summary returns the all-time stats of the link (click.KindLink) or QR
// code (click.KindQR) with id. An id nobody visited has all zeros.
func (s *Service) Summary(ctx context.Context, kind click.Kind, id int64) (*Summary, error) {
	kn, err := kindName(kind)
	if err != nil {
		return nil, err
	}
	sum := &Summary{}
	// The reads are independent: side by side, the answer takes as long as
	// the slower one instead of their sum. The slower is the totals: on
	// 18.16, reading one link's uniq state deserializes its whole granule
	// (8192 links' states), 7–9 ms whatever the link (measured with
	// clickhouse-client --time on the bench stack). A finer
	// index_granularity would cut that, but changing it means rebuilding
	// the table, which 18.16 cannot do without a window where the view's
	// inserts are lost or counted twice. Each goroutine writes its own
	// fields.
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := s.conn.QueryRow(gctx, totalsSQL, kn, uint64(id)).Scan(
			&sum.Clicks, &sum.UniqueClicks, &sum.BotClicks, &sum.PreviewClicks, &sum.PrefetchClicks); err != nil {
			return unavailable("read click totals", err)
		}
		return nil
	})
	g.Go(func() (err error) {
		sum.Breakdown, err = s.breakdown(gctx, "click_dims_total"+dimsWhere, kn, uint64(id))
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return sum, nil
}

// breakdown runs the dims query over from (table plus WHERE) with args.
func (s *Service) breakdown(ctx context.Context, from string, args ...any) (Breakdown, error) {
	rows, err := s.conn.Query(ctx, dimsSelect+from+dimsTail, args...)
	if err != nil {
		return Breakdown{}, unavailable("read click breakdown", err)
	}
	defer rows.Close()
	byDim := map[string][]Count{}
	for rows.Next() {
		var dim string
		var c Count
		if err := rows.Scan(&dim, &c.Name, &c.N); err != nil {
			return Breakdown{}, unavailable("scan click breakdown", err)
		}
		byDim[dim] = append(byDim[dim], c)
	}
	if err := rows.Err(); err != nil {
		return Breakdown{}, unavailable("read click breakdown", err)
	}
	b := Breakdown{
		Countries:  top(byDim["country"], countryName),
		Referrers:  top(byDim["referrer"], nil),
		Browsers:   top(byDim["browser"], nil),
		OS:         top(byDim["os"], nil),
		Categories: make(map[string]uint64, len(byDim["category"])),
	}
	for _, c := range byDim["category"] {
		b.Categories[c.Name] += c.N
	}
	return b, nil
}

// countryName turns a stored ISO code into the lower-case English name the
// single-link response also uses for geo targets (details.location); codes
// that name no country (and the empty code) are "unknown".
func countryName(code string) string {
	if n := target.CountryName(code); n != "" {
		return n
	}
	return "unknown"
}

// top renames (when rename is not nil), merges equal names, and returns the
// TopN largest counts, ties broken by name, in that order.
func top(cs []Count, rename func(string) string) []Count {
	if rename != nil {
		merged := make(map[string]uint64, len(cs))
		for _, c := range cs {
			merged[rename(c.Name)] += c.N
		}
		cs = cs[:0:0]
		for name, n := range merged {
			cs = append(cs, Count{Name: name, N: n})
		}
	}
	slices.SortFunc(cs, func(a, b Count) int {
		if c := cmp.Compare(b.N, a.N); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	if len(cs) > TopN {
		cs = cs[:TopN]
	}
	return cs
}

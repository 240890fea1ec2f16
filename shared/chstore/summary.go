package chstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"golang.org/x/sync/errgroup"

	"kurz/shared/click"
	"kurz/shared/target"
)

// The click summary of one link or QR code: the numbers of the admin's
// single-link and single-QR responses and of the edge's public stats page
// ({shorturl}+). Both read them here, so the two can never disagree on what
// a click, a unique click or a top-N list is.
//
// Every all-time read uses the aggregate tables of migrations/clickhouse
// (0002–0015), never a scan of the raw clicks, so a link's summary costs
// the same at ten clicks and at a hundred million; date ranges read
// click_breakdown_days, and the raw rows only of the clicks counted
// before 0011 (rangeDimsFrom). Only ClassHuman visits count
// towards clicks, uniqueClicks and the breakdowns; bots, previews and
// prefetches are reported apart.

// TopN is how many values a breakdown (top countries, referrers, browsers,
// operating systems) lists.
const TopN = 10

// Count is one entry of a breakdown: a display name and its human clicks.
type Count struct {
	Name string
	N    uint64
}

// Breakdown is the top-N lists and the referrer categories of a set of
// human clicks.
type Breakdown struct {
	Countries []Count // lower-case English country names, "unknown" when not known
	Referrers []Count // referrer hosts, "direct" for visits without a referrer
	Browsers  []Count
	OS        []Count
	// Categories maps every referrer category seen (socialnetwork, microblog,
	// searchengine, photosharing, messaging, email, direct, other) to its
	// human clicks; absent categories are zero.
	Categories map[string]uint64
}

// RangeBreakdown is the Breakdown of a range of days with what the
// dashboard's statistics page shows beside it, from the same query: the
// device classes and every country.
type RangeBreakdown struct {
	Breakdown
	// Devices is the human clicks per device class as stored (desktop,
	// mobile, tablet, tv, bot, unknown), most first, ties by name.
	Devices []Count
	// CountryCodes is the human clicks per ISO 3166-1 alpha-2 code as
	// stored ("" for unknown), every country (Countries keeps the top
	// TopN), most first, ties by code: what a world map colours.
	CountryCodes []Count
}

// Summary is the all-time stats of one link or QR code.
type Summary struct {
	Clicks         uint64 // human visits
	UniqueClicks   uint64 // distinct visitor ids among human visits
	BotClicks      uint64
	PreviewClicks  uint64
	PrefetchClicks uint64
	Breakdown
}

// VisitorsMerge turns the visitor sketches of click_uniques,
// click_daily_uniques or click_hourly_uniques (0012) into a number of
// distinct visitors. Every read of unique clicks uses it, so a link's
// all-time number, a date range's and a list row's come from one
// estimator: exact up to ~2,000 distinct visitors, typically within 1%
// above, up to ~3.5% over between ~80,000 and ~100,000 (docs/api.md,
// "uniqueClicks").
const VisitorsMerge = `uniqCombinedMerge(15)(visitors)`

// totalsSQL reads the all-time counters of one target (0002) and its
// distinct visitors (0012: a table of small granules, so that one target's
// sketch is read without its neighbours'). On an unknown target it returns
// one row of zeros: aggregates without GROUP BY always answer. Its
// arguments are kind and id, twice.
const totalsSQL = `SELECT countIfMerge(humans),
	(SELECT ` + VisitorsMerge + ` FROM click_uniques WHERE kind = ? AND target_id = ?),
	countIfMerge(bots), countIfMerge(previews), countIfMerge(prefetches)
FROM click_totals WHERE kind = ? AND target_id = ?`

// dimsSelect is the breakdown query over the dimension tables: for all
// time dimsTotalFrom, for a date range rangeDimsFrom.
// Names are mapped in SQL so that the top-N cut and its tie-break (count
// descending, then name) happen on the names the API shows; countries are
// mapped to names in Go (top), which is why LIMIT BY keeps up to 1000
// values per dimension: more than every two-letter code, so a country's
// rank is decided on all of them, and country codes stay codes ("" too)
// for the map (RangeBreakdown.CountryCodes); for referrers the SQL order
// already is the final one. Dimension language is not reported, device
// only for ranges.
const dimsSelect = `SELECT dim, multiIf(dim = 'referrer' AND value = '', 'direct', value = '' AND dim != 'country', 'unknown', value) AS name,
	sum(hits) AS n
FROM `

const dimsIn = ` AND dim IN ('country', 'referrer', 'browser', 'os', 'category')`

// breakdownRows expands click_breakdown_days (0015) into (dim, value,
// hits) rows: a row of one dimension (every row copied from 0014's
// click_dims_days, and the countries since) is itself; a referrer_category
// row is its host's referrer row and its category row; a client row its
// browser's, system's and, where wanted, device class's rows. %[1]s is the
// WHERE clause (a target, maybe a range of days), %[2]s the client row's
// device entry: device is reported for ranges only, and %[3]s then also
// keeps out the copied device rows. (d.1 is named dim outside the
// subquery only: the table's own column is grp, so that the names cannot
// meet.)
const breakdownRows = `SELECT d.1 AS dim, d.2 AS value, hits FROM (SELECT hits,
		arrayJoin(multiIf(grp = 'referrer_category', [('referrer', a), ('category', b)],
			grp = 'client', [('browser', a), ('os', b)%[2]s],
			[(toString(grp), a)])) AS d
		FROM click_breakdown_days%[1]s%[3]s)`

// breakdownRowsOf returns breakdownRows for the WHERE clause where, with
// device classes or without.
func breakdownRowsOf(where string, devices bool) string {
	if devices {
		return fmt.Sprintf(breakdownRows, where, ", ('device', c)", "")
	}
	return fmt.Sprintf(breakdownRows, where, "", " AND grp != 'device'")
}

// targetWhere selects one target's rows: kind, id.
const targetWhere = ` WHERE kind = ? AND target_id = ?`

// dimsTotalFrom is every human click's dimensions: click_dims_total holds
// those of the clicks in clicks (0004), click_breakdown_days those in
// click_events (0011, 0015), rows per day. Its arguments are kind and id,
// twice.
var dimsTotalFrom = `(SELECT dim, value, hits FROM click_dims_total WHERE kind = ? AND target_id = ?` + dimsIn + `
	UNION ALL ` + breakdownRowsOf(targetWhere, false) + `)`

const dimsTail = ` GROUP BY dim, name HAVING n > 0 ORDER BY dim, n DESC, name LIMIT 1000 BY dim`

// dailyWhere selects one target's days of click_breakdown_days in a range
// of whole UTC days: kind, id, from, end (Unix seconds of midnights).
const dailyWhere = ` WHERE kind = ? AND target_id = ? AND day >= toDate(toDateTime(?, 'UTC')) AND day < toDate(toDateTime(?, 'UTC'))`

// rangeDimsWhere selects one target's human clicks of a range in the raw
// clicks table: kind, id, from, end (Unix seconds).
const rangeDimsWhere = ` WHERE kind = ? AND target_id = ? AND ts >= toDateTime(?, 'UTC') AND ts < toDateTime(?, 'UTC') AND class = 'human' GROUP BY value`

// rangeDimsFrom breaks a range of days down by dimension: the days of
// click_breakdown_days (the clicks in click_events), plus the raw clicks of
// the range in clicks, written before 0011, within their primary-key range
// (kind, target_id, ts), which click_dims_total cannot split by day. For
// those, one GROUP BY per dimension over its own column, joined by UNION
// ALL, instead of an ARRAY JOIN of all five into (dim, value) rows: 45%
// less time for a 200k-click range in eight alternated runs on 18.16
// (median 0.15 against 0.27 s on a loaded machine). Its arguments are
// kind, id, from, end, once per branch (rangeDimsBranches).
var rangeDimsFrom = `(SELECT 'country' AS dim, country AS value, count() AS hits FROM clicks` + rangeDimsWhere + `
	UNION ALL SELECT 'referrer' AS dim, referrer_host AS value, count() AS hits FROM clicks` + rangeDimsWhere + `
	UNION ALL SELECT 'browser' AS dim, browser AS value, count() AS hits FROM clicks` + rangeDimsWhere + `
	UNION ALL SELECT 'os' AS dim, os AS value, count() AS hits FROM clicks` + rangeDimsWhere + `
	UNION ALL SELECT 'category' AS dim, toString(referrer_category) AS value, count() AS hits FROM clicks` + rangeDimsWhere + `
	UNION ALL SELECT 'device' AS dim, device AS value, count() AS hits FROM clicks` + rangeDimsWhere + `
	UNION ALL ` + breakdownRowsOf(dailyWhere, true) + `)`

const rangeDimsBranches = 7

// dailyDimsFrom is rangeDimsFrom without the raw clicks: what a range
// reads when clicks holds none of the target's human clicks in it, which
// legacyInRangeSQL tells in ~3 ms. The six raw branches cost ~10 ms even
// over an empty table (18.16, 30 days of the busiest of 100k links: 21-46
// against 8-15 ms), and every kurz since 0011 writes click_events only.
// Its arguments are kind, id, from, end.
var dailyDimsFrom = `(` + breakdownRowsOf(dailyWhere, true) + `)`

// legacyInRangeSQL counts the target's human clicks of a range in clicks:
// kind, id, from, end (Unix seconds).
const legacyInRangeSQL = `SELECT count() FROM clicks WHERE kind = ? AND target_id = ?
	AND ts >= toDateTime(?, 'UTC') AND ts < toDateTime(?, 'UTC') AND class = 'human'`

// ReadSummary returns the all-time stats of the link (click.KindLink) or QR
// code (click.KindQR) with id. An id nobody visited has all zeros. A
// ClickHouse failure wraps link.ErrUnavailable.
func ReadSummary(ctx context.Context, conn driver.Conn, kind click.Kind, id int64) (*Summary, error) {
	kn, err := KindName(kind)
	if err != nil {
		return nil, err
	}
	sum := &Summary{}
	// The reads are independent: side by side, the answer takes as long as
	// the slower one instead of their sum. Each goroutine writes its own
	// fields.
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := conn.QueryRow(gctx, totalsSQL, kn, uint64(id), kn, uint64(id)).Scan(
			&sum.Clicks, &sum.UniqueClicks, &sum.BotClicks, &sum.PreviewClicks, &sum.PrefetchClicks); err != nil {
			return Unavailable("read click totals", err)
		}
		return nil
	})
	g.Go(func() error {
		byDim, err := readDims(gctx, conn, dimsTotalFrom, kn, uint64(id), kn, uint64(id))
		sum.Breakdown = breakdownOf(byDim)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return sum, nil
}

// ReadRangeBreakdown returns the breakdown of the human clicks on the link
// or QR code id captured in [from, end), two UTC midnights. A ClickHouse
// failure wraps link.ErrUnavailable.
func ReadRangeBreakdown(ctx context.Context, conn driver.Conn, kind click.Kind, id int64, from, end time.Time) (RangeBreakdown, error) {
	kn, err := KindName(kind)
	if err != nil {
		return RangeBreakdown{}, err
	}
	if err := wholeDays(from, end); err != nil {
		return RangeBreakdown{}, err
	}
	var legacy uint64
	if err := conn.QueryRow(ctx, legacyInRangeSQL, kn, uint64(id), from.Unix(), end.Unix()).Scan(&legacy); err != nil {
		return RangeBreakdown{}, Unavailable("read legacy clicks of a range", err)
	}
	source, branches := dailyDimsFrom, 1
	if legacy > 0 {
		source, branches = rangeDimsFrom, rangeDimsBranches
	}
	args := make([]any, 0, 4*branches)
	for range branches {
		args = append(args, kn, uint64(id), from.Unix(), end.Unix())
	}
	byDim, err := readDims(ctx, conn, source, args...)
	if err != nil {
		return RangeBreakdown{}, err
	}
	// The SQL orders by count descending, then name: for countries the
	// stored code, as CountryCodes promises.
	return RangeBreakdown{Breakdown: breakdownOf(byDim), Devices: top(byDim["device"], nil), CountryCodes: byDim["country"]}, nil
}

// wholeDays refuses a range that does not start and end at UTC midnight:
// the daily tables cannot split a day.
func wholeDays(from, end time.Time) error {
	if !from.Equal(from.UTC().Truncate(24*time.Hour)) || !end.Equal(end.UTC().Truncate(24*time.Hour)) {
		return fmt.Errorf("range %s to %s: not whole UTC days", from.Format(time.RFC3339), end.Format(time.RFC3339))
	}
	return nil
}

// readDims runs the dims query over from (table plus WHERE) with args:
// the counts of each dimension, most first.
func readDims(ctx context.Context, conn driver.Conn, from string, args ...any) (map[string][]Count, error) {
	rows, err := conn.Query(ctx, dimsSelect+from+dimsTail, args...)
	if err != nil {
		return nil, Unavailable("read click breakdown", err)
	}
	defer rows.Close()
	byDim := map[string][]Count{}
	for rows.Next() {
		var dim string
		var c Count
		if err := rows.Scan(&dim, &c.Name, &c.N); err != nil {
			return nil, Unavailable("scan click breakdown", err)
		}
		byDim[dim] = append(byDim[dim], c)
	}
	if err := rows.Err(); err != nil {
		return nil, Unavailable("read click breakdown", err)
	}
	return byDim, nil
}

// breakdownOf cuts readDims' counts into a Breakdown.
func breakdownOf(byDim map[string][]Count) Breakdown {
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
	return b
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

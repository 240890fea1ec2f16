package stats

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// Interval is the bucket size of a time series.
type Interval string

const (
	Day  Interval = "day"
	Hour Interval = "hour"
	// Week buckets start on Mondays (UTC); the first may begin before the
	// range and counts only its days within it. The dashboard's chart uses
	// it; the API's chart extension offers day and hour.
	Week Interval = "week"
)

// Range limits of the chart extension: a day series covers at most a leap
// year, an hour series at most 31 days (744 buckets).
const (
	MaxDays      = 366
	MaxHourDays  = 31
	DefaultDays  = 30
	dateLayout   = "2006-01-02"
	bucketLayout = "2006-01-02 15:04:05"
)

// Bucket is one point of a series: human clicks and distinct visitors in
// [Start, Start+interval).
type Bucket struct {
	Start        time.Time
	Clicks       uint64
	UniqueClicks uint64
}

// Range is the stats of one target over whole UTC days From..To (both
// inclusive).
type Range struct {
	From, To     time.Time
	Interval     Interval
	Clicks       uint64 // human clicks in the range
	UniqueClicks uint64 // distinct visitors over the whole range (not the sum of the buckets)
	// Bots, Previews and Prefetches are the range's visits that were not
	// people, by class.
	Bots, Previews, Prefetches uint64
	Series                     []Bucket
	RangeBreakdown
}

// ErrRange is returned for a range the chart extension refuses.
var ErrRange = errors.New("invalid range")

// CheckRange validates from..to (UTC midnights) for interval iv.
func CheckRange(from, to time.Time, iv Interval) error {
	if to.Before(from) {
		return fmt.Errorf("%w: from is after to", ErrRange)
	}
	days := int(to.Sub(from)/(24*time.Hour)) + 1
	switch iv {
	case Day, Week:
		if days > MaxDays {
			return fmt.Errorf("%w: at most %d days with interval day", ErrRange, MaxDays)
		}
	case Hour:
		if days > MaxHourDays {
			return fmt.Errorf("%w: at most %d days with interval hour", ErrRange, MaxHourDays)
		}
	default:
		return fmt.Errorf("%w: interval must be day or hour", ErrRange)
	}
	return nil
}

// hourWhere selects one target's hours of a range: kind, id, from, end.
const hourWhere = `kind = ? AND target_id = ? AND hour >= toDateTime(?, 'UTC') AND hour < toDateTime(?, 'UTC')`

// dayWhere selects one target's days of a range of whole UTC days: kind,
// id, from, end.
const dayWhere = `kind = ? AND target_id = ? AND day >= toDate(toDateTime(?, 'UTC')) AND day < toDate(toDateTime(?, 'UTC'))`

// bucketsSQL buckets one aggregate of a table over a range and, WITH
// TOTALS, aggregates the whole range in the same pass: the counters of
// click_hourly (0003) or the visitor sketches of click_hourly_uniques or
// click_daily_uniques (0012). Reading the rows once instead of once for
// the series and once for the range's total halves the work of a busy
// link's page: merging its sketches is most of it. Arguments: the
// aggregate (%[1]s), the grain (%[2]s: table, %[3]s: bucket, toDate(hour)
// or day for days, toMonday(…) for weeks, hour for hours, UTC as the
// columns are; %[4]s: its range condition); then the range's kind, id,
// from, end.
const bucketsSQL = `SELECT toDateTime(%[3]s, 'UTC') AS b, %[1]s FROM %[2]s
WHERE %[4]s GROUP BY b WITH TOTALS`

// humansAgg is the series' clicks; the visits that were not people ride
// along for the range's totals (Range.Bots...), read in the same pass
// over the same hours instead of a query of their own.
const humansAgg = `countIfMerge(humans), countIfMerge(bots), countIfMerge(previews), countIfMerge(prefetches)`

// grain is a table read by bucketsSQL and how it buckets.
type grain struct {
	table, bucket, where string
}

// grains picks the tables of a series: the counters by hour (a range's
// hours are cheap fixed-size states), the distinct visitors at the
// coarsest grain the interval allows, since the cost of a range's unique
// clicks is the number of sketches merged (90 days: 90 daily sketches
// instead of 2,160 hourly ones).
func grains(iv Interval) (clicks, uniques grain) {
	switch iv {
	case Day:
		return grain{"click_hourly", "toDate(hour)", hourWhere}, grain{"click_daily_uniques", "day", dayWhere}
	case Week:
		return grain{"click_hourly", "toMonday(hour)", hourWhere}, grain{"click_daily_uniques", "toMonday(day)", dayWhere}
	default:
		return grain{"click_hourly", "hour", hourWhere}, grain{"click_hourly_uniques", "hour", hourWhere}
	}
}

// bucketed is one bucketsSQL read: the first aggregate per bucket start
// and every aggregate's total over the range.
type bucketed struct {
	by     map[int64]uint64
	totals []uint64
}

// buckets reads aggs (n aggregates, the first bucketed) of g.
func (s *Service) buckets(ctx context.Context, aggs string, n int, g grain, args []any) (bucketed, error) {
	out := bucketed{by: map[int64]uint64{}, totals: make([]uint64, n)}
	rows, err := s.conn.Query(ctx, fmt.Sprintf(bucketsSQL, aggs, g.table, g.bucket, g.where), args...)
	if err != nil {
		return out, chstore.Unavailable("read click series", err)
	}
	defer rows.Close()
	var b time.Time
	vals := make([]uint64, n)
	dest := make([]any, n+1)
	dest[0] = &b
	for i := range vals {
		dest[i+1] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return out, chstore.Unavailable("scan click series", err)
		}
		out.by[b.Unix()] = vals[0]
	}
	if err := rows.Err(); err != nil {
		return out, chstore.Unavailable("read click series", err)
	}
	if err := rows.Totals(dest...); err != nil {
		return out, chstore.Unavailable("read click series totals", err)
	}
	copy(out.totals, vals)
	return out, nil
}

// seriesOf zero-fills the buckets from start to end by step.
func seriesOf(clicks, uniques bucketed, start, end time.Time, step time.Duration) []Bucket {
	out := make([]Bucket, 0, int(end.Sub(start)/step)+1)
	for t := start; t.Before(end); t = t.Add(step) {
		out = append(out, Bucket{Start: t, Clicks: clicks.by[t.Unix()], UniqueClicks: uniques.by[t.Unix()]})
	}
	return out
}

// Range returns the series, totals and breakdowns of one target for the
// whole UTC days from..to, every bucket present (zero-filled).
func (s *Service) Range(ctx context.Context, kind click.Kind, id int64, from, to time.Time, iv Interval) (*Range, error) {
	from, to = midnight(from), midnight(to)
	if err := CheckRange(from, to, iv); err != nil {
		return nil, err
	}
	kn, err := chstore.KindName(kind)
	if err != nil {
		return nil, err
	}
	end := to.AddDate(0, 0, 1)
	args := []any{kn, uint64(id), from.Unix(), end.Unix()}
	step, start := time.Hour, from
	switch iv {
	case Day:
		step = 24 * time.Hour
	case Week:
		step, start = 7*24*time.Hour, monday(from)
	}
	clicksGrain, uniquesGrain := grains(iv)
	r := &Range{From: from, To: to, Interval: iv}
	var clicks, uniques bucketed
	// Independent reads, side by side (see Summary); each writes its own
	// variable.
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		clicks, err = s.buckets(gctx, humansAgg, 4, clicksGrain, args)
		return err
	})
	g.Go(func() (err error) {
		uniques, err = s.uniqueBuckets(gctx, kind, id, uniquesGrain, args)
		return err
	})
	g.Go(func() (err error) {
		r.RangeBreakdown, err = chstore.ReadRangeBreakdown(gctx, s.conn, kind, id, from, end)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	r.Clicks, r.Bots, r.Previews, r.Prefetches = clicks.totals[0], clicks.totals[1], clicks.totals[2], clicks.totals[3]
	r.UniqueClicks = uniques.totals[0]
	r.Series = seriesOf(clicks, uniques, start, end, step)
	return r, nil
}

// midnight truncates t to the start of its UTC day.
func midnight(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// monday is the start of the UTC week (Monday) of midnight t.
func monday(t time.Time) time.Time {
	return t.AddDate(0, 0, -(int(t.Weekday())+6)%7)
}

// FormatBucket formats a bucket start for the API: "YYYY-MM-DD" for days,
// "YYYY-MM-DD HH:00:00" for hours.
func FormatBucket(t time.Time, iv Interval) string {
	if iv == Day || iv == Week {
		return t.UTC().Format(dateLayout)
	}
	return t.UTC().Format(bucketLayout)
}

// ParseDate parses a "YYYY-MM-DD" query value as a UTC midnight.
func ParseDate(s string) (time.Time, error) {
	return time.ParseInLocation(dateLayout, s, time.UTC)
}

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
	Series       []Bucket
	Breakdown
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

// rangeWhere selects one target's hours of a range: kind, id, from, end.
const rangeWhere = `kind = ? AND target_id = ? AND hour >= toDateTime(?, 'UTC') AND hour < toDateTime(?, 'UTC')`

// seriesSQL buckets the counters of click_hourly (0003) and the distinct
// visitors of click_hourly_visitors (0009, small granules: see there);
// bucket (both %s) is toDate(hour) for days (UTC: the column is
// DateTime('UTC')), toMonday(hour) for weeks or hour itself. Its arguments
// are the range's twice.
const seriesSQL = `SELECT b, sum(c), sum(u) FROM (
	SELECT toDateTime(%[1]s, 'UTC') AS b, countIfMerge(humans) AS c, toUInt64(0) AS u
	FROM click_hourly WHERE ` + rangeWhere + ` GROUP BY b
	UNION ALL
	SELECT toDateTime(%[1]s, 'UTC') AS b, toUInt64(0) AS c, uniqIfMerge(visitors) AS u
	FROM click_hourly_visitors WHERE ` + rangeWhere + ` GROUP BY b
) GROUP BY b ORDER BY b`

// rangeTotalsSQL is the range's clicks and distinct visitors, from the
// same tables; its arguments are the range's twice.
const rangeTotalsSQL = `SELECT
	(SELECT countIfMerge(humans) FROM click_hourly WHERE ` + rangeWhere + `),
	(SELECT uniqIfMerge(visitors) FROM click_hourly_visitors WHERE ` + rangeWhere + `)`

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
	args = append(args, args...) // both tables of seriesSQL and rangeTotalsSQL
	r := &Range{From: from, To: to, Interval: iv}
	// Independent reads, side by side (see Summary); each writes its own
	// fields.
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := s.conn.QueryRow(gctx, rangeTotalsSQL, args...).Scan(&r.Clicks, &r.UniqueClicks); err != nil {
			return chstore.Unavailable("read range totals", err)
		}
		return nil
	})
	g.Go(func() (err error) {
		r.Series, err = s.series(gctx, iv, from, end, args)
		return err
	})
	g.Go(func() (err error) {
		r.Breakdown, err = chstore.ReadRangeBreakdown(gctx, s.conn, kind, id, from, end)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return r, nil
}

func (s *Service) series(ctx context.Context, iv Interval, from, end time.Time, args []any) ([]Bucket, error) {
	step, bucket, start := time.Hour, "hour", from
	switch iv {
	case Day:
		step, bucket = 24*time.Hour, "toDate(hour)"
	case Week:
		step, bucket, start = 7*24*time.Hour, "toMonday(hour)", monday(from)
	}
	rows, err := s.conn.Query(ctx, fmt.Sprintf(seriesSQL, bucket), args...)
	if err != nil {
		return nil, chstore.Unavailable("read click series", err)
	}
	defer rows.Close()
	got := map[int64]Bucket{}
	for rows.Next() {
		var b Bucket
		if err := rows.Scan(&b.Start, &b.Clicks, &b.UniqueClicks); err != nil {
			return nil, chstore.Unavailable("scan click series", err)
		}
		got[b.Start.Unix()] = b
	}
	if err := rows.Err(); err != nil {
		return nil, chstore.Unavailable("read click series", err)
	}
	out := make([]Bucket, 0, int(end.Sub(from)/step))
	for t := start; t.Before(end); t = t.Add(step) {
		b := got[t.Unix()]
		b.Start = t
		out = append(out, b)
	}
	return out, nil
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

package chstore

import (
	"context"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// RangeVisits is what the dashboard's statistics page shows of a date
// range beside the human breakdowns: people's device classes, and the
// visits that were not people, by kind.
type RangeVisits struct {
	// Devices is the human clicks per device class as stored (desktop,
	// mobile, tablet, tv, bot, unknown), most first, ties by name.
	Devices                    []Count
	Bots, Previews, Prefetches uint64
}

// rangeDevicesSQL counts the human clicks of one target in a range of
// days by device class: the days of click_dims_daily (dimension device,
// 0011) and the raw clicks of the range in clicks (written before 0011),
// as the range breakdown reads them (rangeDimsFrom). Its arguments are
// kind, id, from, end, twice.
const rangeDevicesSQL = `SELECT device, sum(c) AS n FROM (
	SELECT device, count() AS c FROM clicks
	WHERE kind = ? AND target_id = ? AND ts >= toDateTime(?, 'UTC') AND ts < toDateTime(?, 'UTC') AND class = 'human'
	GROUP BY device
	UNION ALL SELECT value AS device, hits AS c FROM click_dims_daily` + dailyWhere + ` AND dim = 'device')
GROUP BY device HAVING n > 0`

// rangeClassesSQL counts the visits of one target in a range that were not
// people, from the hours of click_hourly, which the views of both raw
// tables fill: kind, id, from, end.
const rangeClassesSQL = `SELECT countIfMerge(bots), countIfMerge(previews), countIfMerge(prefetches) FROM click_hourly
WHERE kind = ? AND target_id = ? AND hour >= toDateTime(?, 'UTC') AND hour < toDateTime(?, 'UTC')`

// ReadRangeVisits returns the device classes of the human clicks on the
// link or QR code id captured in [from, end), two UTC midnights, and that
// range's bot, preview and prefetch visits. A ClickHouse failure wraps
// link.ErrUnavailable.
func ReadRangeVisits(ctx context.Context, conn driver.Conn, kind click.Kind, id int64, from, end time.Time) (RangeVisits, error) {
	var v RangeVisits
	kn, err := KindName(kind)
	if err != nil {
		return v, err
	}
	if err := wholeDays(from, end); err != nil {
		return v, err
	}
	args := []any{kn, uint64(id), from.Unix(), end.Unix()}
	if err := conn.QueryRow(ctx, rangeClassesSQL, args...).Scan(&v.Bots, &v.Previews, &v.Prefetches); err != nil {
		return v, Unavailable("read range visits", err)
	}
	rows, err := conn.Query(ctx, rangeDevicesSQL, append(args, args...)...)
	if err != nil {
		return v, Unavailable("read range devices", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c Count
		if err := rows.Scan(&c.Name, &c.N); err != nil {
			return v, Unavailable("scan range devices", err)
		}
		v.Devices = append(v.Devices, c)
	}
	if err := rows.Err(); err != nil {
		return v, Unavailable("read range devices", err)
	}
	v.Devices = top(v.Devices, nil) // six classes: the top N is all of them
	return v, nil
}

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

// rangeVisitsSQL counts every visit of one target in [from, end) by class
// and device in one pass over the raw clicks of the range, within the
// primary key (kind, target_id, ts) as the range breakdown reads: no
// aggregate has the device column (0004 keeps it out, see there), and a
// new one would cost every insert.
const rangeVisitsSQL = `SELECT toString(class) AS c, device, count() AS n FROM ` + click.RawSource + `
WHERE kind = ? AND target_id = ? AND ts >= toDateTime(?, 'UTC') AND ts < toDateTime(?, 'UTC')
GROUP BY c, device`

// ReadRangeVisits returns the device classes of the human clicks on the
// link or QR code id captured in [from, end) and that range's bot,
// preview and prefetch visits. A ClickHouse failure wraps
// link.ErrUnavailable.
func ReadRangeVisits(ctx context.Context, conn driver.Conn, kind click.Kind, id int64, from, end time.Time) (RangeVisits, error) {
	var v RangeVisits
	kn, err := KindName(kind)
	if err != nil {
		return v, err
	}
	rows, err := conn.Query(ctx, rangeVisitsSQL, kn, uint64(id), from.Unix(), end.Unix())
	if err != nil {
		return v, Unavailable("read range visits", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			class string
			c     Count
		)
		if err := rows.Scan(&class, &c.Name, &c.N); err != nil {
			return v, Unavailable("scan range visits", err)
		}
		switch class {
		case "human":
			v.Devices = append(v.Devices, c)
		case "bot":
			v.Bots += c.N
		case "preview":
			v.Previews += c.N
		case "prefetch":
			v.Prefetches += c.N
		}
	}
	if err := rows.Err(); err != nil {
		return v, Unavailable("read range visits", err)
	}
	v.Devices = top(v.Devices, nil) // six classes: the top N is all of them
	return v, nil
}

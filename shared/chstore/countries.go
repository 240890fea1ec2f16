package chstore

import (
	"context"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// rangeCountriesSQL counts the human clicks of one target in [from, end)
// per stored country code, every country (a breakdown keeps the top
// TopN): what a world map colours. It reads the raw clicks of the range
// within the primary key, as the range breakdown does.
const rangeCountriesSQL = `SELECT country, count() AS n FROM ` + click.RawSource + `
WHERE kind = ? AND target_id = ? AND ts >= toDateTime(?, 'UTC') AND ts < toDateTime(?, 'UTC') AND class = 'human'
GROUP BY country ORDER BY n DESC, country`

// ReadRangeCountries returns the human clicks on the link or QR code id
// captured in [from, end) per ISO 3166-1 alpha-2 code as stored ("" for
// unknown), most first. A ClickHouse failure wraps link.ErrUnavailable.
func ReadRangeCountries(ctx context.Context, conn driver.Conn, kind click.Kind, id int64, from, end time.Time) ([]Count, error) {
	kn, err := KindName(kind)
	if err != nil {
		return nil, err
	}
	rows, err := conn.Query(ctx, rangeCountriesSQL, kn, uint64(id), from.Unix(), end.Unix())
	if err != nil {
		return nil, Unavailable("read click countries", err)
	}
	defer rows.Close()
	var out []Count
	for rows.Next() {
		var c Count
		if err := rows.Scan(&c.Name, &c.N); err != nil {
			return nil, Unavailable("scan click countries", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, Unavailable("read click countries", err)
	}
	return out, nil
}

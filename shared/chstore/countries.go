package chstore

import (
	"context"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// rangeCountriesSQL counts the human clicks of one target in a range of
// days per stored country code, every country (a breakdown keeps the top
// TopN): what a world map colours. It reads the days of click_dims_daily
// and the raw clicks of the range in clicks, as the range breakdown does
// (rangeDimsFrom). Its arguments are kind, id, from, end, twice.
const rangeCountriesSQL = `SELECT country, sum(c) AS n FROM (
	SELECT country, count() AS c FROM clicks
	WHERE kind = ? AND target_id = ? AND ts >= toDateTime(?, 'UTC') AND ts < toDateTime(?, 'UTC') AND class = 'human'
	GROUP BY country
	UNION ALL SELECT value AS country, hits AS c FROM click_dims_daily` + dailyWhere + ` AND dim = 'country')
GROUP BY country HAVING n > 0 ORDER BY n DESC, country`

// ReadRangeCountries returns the human clicks on the link or QR code id
// captured in [from, end), two UTC midnights, per ISO 3166-1 alpha-2 code
// as stored ("" for unknown), most first. A ClickHouse failure wraps
// link.ErrUnavailable.
func ReadRangeCountries(ctx context.Context, conn driver.Conn, kind click.Kind, id int64, from, end time.Time) ([]Count, error) {
	kn, err := KindName(kind)
	if err != nil {
		return nil, err
	}
	if err := wholeDays(from, end); err != nil {
		return nil, err
	}
	rows, err := conn.Query(ctx, rangeCountriesSQL, kn, uint64(id), from.Unix(), end.Unix(), kn, uint64(id), from.Unix(), end.Unix())
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

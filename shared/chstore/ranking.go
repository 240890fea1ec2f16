package chstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// Ranked is an owner's targets with human clicks, most clicked first (ties:
// higher id first), as parallel slices: the shape a PostgreSQL array
// parameter takes.
type Ranked struct {
	IDs, Clicks []int64
}

// rankingSQL reads one owner's key range of click_owner_totals (0007); a
// limit keeps the top of it. The sum over the owner's rows is the same
// work either way, but sorting and sending 100k rows is not: with LIMIT
// 1000 a 100k-link owner's ranking took a third of the time. FROM …
// FINAL instead of the GROUP BY answered one query alone faster (12-13 ms
// against 21-23 ms, 18.16, three parts) but not four at once (0.90-0.96 s
// against 0.81-0.89 s for 20), and make bench's ranked pages were a third
// to 60% slower with it: it runs on one thread where the GROUP BY takes two.
//
// WITH TOTALS adds the owner's human clicks as of the same read: a cache
// of rankings can key on it without a second query, whose snapshot could
// differ from the ranking's. The totals are summed before the LIMIT and,
// by the default totals_mode (after_having_exclusive), over the groups
// HAVING keeps: all of them but those of no human click, which add
// nothing. A HAVING that dropped clicked targets would make this total
// differ from ReadOwnerHumans (TestRankingSumsUnmergedParts compares them).
const rankingSQL = `SELECT target_id, sum(humans) AS n
FROM click_owner_totals WHERE kind = ? AND owner_id = ?
GROUP BY target_id WITH TOTALS HAVING n > 0 ORDER BY n DESC, target_id DESC`

// ownerHumansSQL is the owner's human clicks of a kind: the same rows as
// the ranking, one column summed.
const ownerHumansSQL = `SELECT sum(humans) FROM click_owner_totals WHERE kind = ? AND owner_id = ?`

// ReadOwnerHumans returns the human clicks of all of owner's targets of
// kind: what changes whenever the ranking can. A ClickHouse failure wraps
// link.ErrUnavailable.
func ReadOwnerHumans(ctx context.Context, conn driver.Conn, kind click.Kind, owner int64) (uint64, error) {
	kn, err := KindName(kind)
	if err != nil {
		return 0, err
	}
	var n uint64
	if err := conn.QueryRow(ctx, ownerHumansSQL, kn, uint64(owner)).Scan(&n); err != nil {
		return 0, Unavailable("read owner's clicks", err)
	}
	return n, nil
}

// ReadRanking returns the targets of kind that owner's visitors clicked,
// most clicked first, the first limit of them (limit <= 0: all), and the
// owner's human clicks over all of them in the same read (what
// ReadOwnerHumans returns when no click lands in between). It includes
// targets deleted since (the caller joins with its own records). A
// ClickHouse failure wraps link.ErrUnavailable.
func ReadRanking(ctx context.Context, conn driver.Conn, kind click.Kind, owner int64, limit int) (Ranked, uint64, error) {
	kn, err := KindName(kind)
	if err != nil {
		return Ranked{}, 0, err
	}
	query, args := rankingSQL, []any{kn, uint64(owner)}
	if limit > 0 {
		query, args = query+` LIMIT ?`, append(args, uint64(limit))
	}
	rows, err := conn.Query(ctx, query, args...)
	if err != nil {
		return Ranked{}, 0, Unavailable("read click ranking", err)
	}
	defer rows.Close()
	var r Ranked
	var id, n uint64
	for rows.Next() {
		if err := rows.Scan(&id, &n); err != nil {
			return Ranked{}, 0, Unavailable("scan click ranking", err)
		}
		r.IDs = append(r.IDs, int64(id))
		r.Clicks = append(r.Clicks, int64(n))
	}
	if err := rows.Err(); err != nil {
		return Ranked{}, 0, Unavailable("read click ranking", err)
	}
	var total uint64
	switch err := rows.Totals(&id, &total); {
	case errors.Is(err, sql.ErrNoRows) && len(r.IDs) == 0:
		// A server that sends no totals row for an empty result: nothing
		// of the owner's was clicked.
	case err != nil:
		return Ranked{}, 0, Unavailable("read click ranking's total", err)
	}
	return r, total, nil
}

package chstore

import (
	"context"
	"fmt"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// MaxTotalsIDs bounds one ReadTotals call: a list page (the admin's page
// size is at most 100), so the IN set and the granules read stay small.
const MaxTotalsIDs = 100

// Totals are a target's all-time headline numbers as a list row shows
// them: the Clicks and UniqueClicks of its Summary.
type Totals struct {
	Clicks, UniqueClicks uint64
}

// listTotalsSQL reads the all-time human clicks of many targets at once from
// click_totals (0002), the table the single-target Summary reads: a list
// row and the target's own page always agree. Visitor sketches are the
// costly part of a read (up to ~24 KiB for a hot target), so they are
// merged only when asked for, from click_uniques (0012) as the Summary's
// are; that query takes kind and the set twice. Targets nobody visited have no row.
const (
	listTotalsSQL = `SELECT target_id, countIfMerge(humans), toUInt64(0)
FROM click_totals WHERE kind = ? AND target_id IN ? GROUP BY target_id`
	listTotalsUniquesSQL = `SELECT target_id, sum(c), sum(u) FROM (
	SELECT target_id, countIfMerge(humans) AS c, toUInt64(0) AS u
	FROM click_totals WHERE kind = ? AND target_id IN ? GROUP BY target_id
	UNION ALL
	SELECT target_id, toUInt64(0) AS c, ` + VisitorsMerge + ` AS u
	FROM click_uniques WHERE kind = ? AND target_id IN ? GROUP BY target_id
) GROUP BY target_id`
)

// ReadTotals returns the Totals of each of ids in one query (UniqueClicks
// only when uniques is set, 0 otherwise); ids nobody visited map to zero
// Totals. More than MaxTotalsIDs ids is an error, not a larger query. A
// ClickHouse failure wraps link.ErrUnavailable.
func ReadTotals(ctx context.Context, conn driver.Conn, kind click.Kind, ids []int64, uniques bool) (map[int64]Totals, error) {
	kn, set, err := idSet(kind, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]Totals, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	for _, id := range ids {
		out[id] = Totals{}
	}
	sql, args := listTotalsSQL, []any{kn, set}
	if uniques {
		sql, args = listTotalsUniquesSQL, append(args, args...)
	}
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, Unavailable("read click totals", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, clicks, visitors uint64
		if err := rows.Scan(&id, &clicks, &visitors); err != nil {
			return nil, Unavailable("scan click totals", err)
		}
		out[int64(id)] = Totals{Clicks: clicks, UniqueClicks: visitors}
	}
	if err := rows.Err(); err != nil {
		return nil, Unavailable("read click totals", err)
	}
	return out, nil
}

// idSet checks a read of ids' numbers (a known kind, at most MaxTotalsIDs
// ids) and returns the kind's name and ids as the IN operand: IN (?) with
// a slice would bind an Array on 18.16; GroupSet binds a tuple.
func idSet(kind click.Kind, ids []int64) (string, clickhouse.GroupSet, error) {
	kn, err := KindName(kind)
	if err != nil {
		return "", clickhouse.GroupSet{}, err
	}
	if len(ids) > MaxTotalsIDs {
		return "", clickhouse.GroupSet{}, fmt.Errorf("chstore: totals of %d ids, at most %d at once", len(ids), MaxTotalsIDs)
	}
	set := make([]any, len(ids))
	for i, id := range ids {
		set[i] = uint64(id)
	}
	return kn, clickhouse.GroupSet{Value: set}, nil
}

package chstore

import (
	"context"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// A target's unique clicks are a merge of its rows in click_uniques
// (0012), one visitor sketch per part holding any of its visitors. Merging
// a dense sketch costs ~0.2 ms on 18.16: the top 50 links of a 100k-link
// owner (three rows each) took 26-35 ms, against 3 ms for their clicks,
// and a list page of the busiest links spent most of its time there.
//
// The rows only change when the parts holding them do. A part is
// immutable and its name is never used again (block numbers only grow; a
// merge or a mutation writes a part of a new name), so the sorted names
// of the parts holding a target's rows identify those rows, and with them
// the count merged from them: a Keyed read with its key stays true while
// a later read finds the same key. Reading the names takes no sketch
// (3-4 ms for 50 targets). On a cluster a target's rows are on one shard
// (shardingKeys), whose replicas hold a part's same rows under its name.
//
// partsKey is that key, "" for a target with no row (no human visitor).
const partsKey = `arrayStringConcat(arraySort(groupArray(_part)), ',')`

// Keyed is a target's Totals with the key of the click_uniques rows that
// decide its unique clicks.
type Keyed struct {
	Totals
	Key string
}

const (
	// clicksKeyedSQL is listTotalsSQL's clicks beside the keys of the
	// targets' sketch rows; it takes kind and the set twice.
	clicksKeyedSQL = `SELECT target_id, sum(c), toUInt64(0), max(k) FROM (
	SELECT target_id, countIfMerge(humans) AS c, '' AS k
	FROM click_totals WHERE kind = ? AND target_id IN ? GROUP BY target_id
	UNION ALL
	SELECT target_id, toUInt64(0) AS c, ` + partsKey + ` AS k
	FROM click_uniques WHERE kind = ? AND target_id IN ? GROUP BY target_id
) GROUP BY target_id`
	// uniquesKeyedSQL is listTotalsUniquesSQL with the keys: the sketches
	// are merged and their parts named by the same read, so the count is
	// exactly that of the rows the key names; the clicks come with them,
	// as one read's (a new visitor between two reads would show more
	// unique clicks than clicks).
	uniquesKeyedSQL = `SELECT target_id, sum(c), sum(u), max(k) FROM (
	SELECT target_id, countIfMerge(humans) AS c, toUInt64(0) AS u, '' AS k
	FROM click_totals WHERE kind = ? AND target_id IN ? GROUP BY target_id
	UNION ALL
	SELECT target_id, toUInt64(0) AS c, ` + VisitorsMerge + ` AS u, ` + partsKey + ` AS k
	FROM click_uniques WHERE kind = ? AND target_id IN ? GROUP BY target_id
) GROUP BY target_id`
)

// ReadClicksKeyed returns each of ids' all-time human clicks (the Clicks
// of ReadTotals; no UniqueClicks) keyed by its sketch rows' parts; ids
// nobody visited map to a zero Keyed. At most MaxTotalsIDs ids. A ClickHouse failure wraps
// link.ErrUnavailable.
func ReadClicksKeyed(ctx context.Context, conn driver.Conn, kind click.Kind, ids []int64) (map[int64]Keyed, error) {
	kn, set, err := idSet(kind, ids)
	if err != nil {
		return nil, err
	}
	return readKeyed(ctx, conn, "read click totals", clicksKeyedSQL, ids, kn, set, kn, set)
}

// ReadUniquesKeyed returns each of ids' Totals (ReadTotals') with the key
// of the rows their unique clicks were merged from. At most MaxTotalsIDs
// ids. A ClickHouse failure wraps link.ErrUnavailable.
func ReadUniquesKeyed(ctx context.Context, conn driver.Conn, kind click.Kind, ids []int64) (map[int64]Keyed, error) {
	kn, set, err := idSet(kind, ids)
	if err != nil {
		return nil, err
	}
	return readKeyed(ctx, conn, "read unique clicks", uniquesKeyedSQL, ids, kn, set, kn, set)
}

func readKeyed(ctx context.Context, conn driver.Conn, what, query string, ids []int64, args ...any) (map[int64]Keyed, error) {
	out := make(map[int64]Keyed, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	for _, id := range ids {
		out[id] = Keyed{}
	}
	rows, err := conn.Query(ctx, query, args...)
	if err != nil {
		return nil, Unavailable(what, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id uint64
		var k Keyed
		if err := rows.Scan(&id, &k.Clicks, &k.UniqueClicks, &k.Key); err != nil {
			return nil, Unavailable(what, err)
		}
		out[int64(id)] = k
	}
	if err := rows.Err(); err != nil {
		return nil, Unavailable(what, err)
	}
	return out, nil
}

package chstore

import (
	"context"
	"fmt"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// MaxUniqueIDs bounds one ReadUniqueClicks call: a list page (the admin's
// page size is at most 100), so the IN set and the granules read stay
// small.
const MaxUniqueIDs = 100

// uniquesSQL reads the all-time unique visitors of many targets at once
// (click_totals, 0002): one query per list page instead of one per row.
// Targets nobody visited have no row.
const uniquesSQL = `SELECT target_id, uniqIfMerge(visitors)
FROM click_totals WHERE kind = ? AND target_id IN ? GROUP BY target_id`

// ReadUniqueClicks returns the UniqueClicks of ReadSummary for each of ids
// (distinct visitors among human visits, all time), in one query; ids
// nobody visited map to 0. More than MaxUniqueIDs ids is an error, not a
// larger query. A ClickHouse failure wraps link.ErrUnavailable.
func ReadUniqueClicks(ctx context.Context, conn driver.Conn, kind click.Kind, ids []int64) (map[int64]uint64, error) {
	kn, err := KindName(kind)
	if err != nil {
		return nil, err
	}
	if len(ids) > MaxUniqueIDs {
		return nil, fmt.Errorf("chstore: unique clicks of %d ids, at most %d at once", len(ids), MaxUniqueIDs)
	}
	out := make(map[int64]uint64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	// IN (?) with a slice would bind an Array on 18.16; GroupSet binds a
	// tuple the IN operator takes.
	set := make([]any, len(ids))
	for i, id := range ids {
		set[i] = uint64(id)
		out[id] = 0
	}
	rows, err := conn.Query(ctx, uniquesSQL, kn, clickhouse.GroupSet{Value: set})
	if err != nil {
		return nil, Unavailable("read unique clicks", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, n uint64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, Unavailable("scan unique clicks", err)
		}
		out[int64(id)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, Unavailable("read unique clicks", err)
	}
	return out, nil
}

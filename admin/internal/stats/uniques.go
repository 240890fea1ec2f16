package stats

import (
	"context"

	"github.com/ClickHouse/clickhouse-go/v2"

	"kurz/shared/click"
)

// uniquesSQL reads the all-time unique visitors of many targets at once
// (click_totals, 0002): one query per list page instead of one per row.
// Targets nobody visited have no row.
const uniquesSQL = `SELECT target_id, uniqIfMerge(visitors)
FROM click_totals WHERE kind = ? AND target_id IN ? GROUP BY target_id`

// UniqueClicks returns the UniqueClicks of Summary for each id (distinct
// visitors among human visits, all time), in one query. Ids nobody
// visited map to 0.
func (s *Service) UniqueClicks(ctx context.Context, kind click.Kind, ids []int64) (map[int64]uint64, error) {
	kn, err := kindName(kind)
	if err != nil {
		return nil, err
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
	rows, err := s.conn.Query(ctx, uniquesSQL, kn, clickhouse.GroupSet{Value: set})
	if err != nil {
		return nil, unavailable("read unique clicks", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, n uint64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, unavailable("scan unique clicks", err)
		}
		out[int64(id)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, unavailable("read unique clicks", err)
	}
	return out, nil
}

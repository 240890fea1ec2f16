package chstore

import (
	"context"
	"strconv"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// An owner's click ranking sums the owner's rows of click_owner_totals
// (0007), which sit in a few parts of the table: one large one and the
// small ones of recent inserts, until merges fold them in. A part never
// changes and its name is never used again, so a reader that kept the
// owner's rows part by part can bring its ranking up to date by reading
// the owner's rows in every part but the ones it kept (ReadOwnerPartRows
// with those names: one read of a few rows, ~2 ms, the parts it excludes
// not even opened), instead of summing all of the owner's rows again (13
// ms at rest for a 100k-link owner on 18.16, 18-40 ms beside an insert's
// merges). What that read returns are the parts of inserts since, and
// the merges that took kept parts in. admin/internal/stats, partrank.go.
//
// Part names are only meaningful on one server: on a cluster each shard
// names its own parts. OwnerTableDistributed tells the two apart.

// TargetClicks is a target's human clicks (in one part).
type TargetClicks struct {
	ID     int64
	Clicks int64
}

const (
	ownerRowsSQL = `SELECT count() FROM click_owner_totals WHERE kind = ? AND owner_id = ?`
	// The rows come unsorted: sorting 100k rows on two keys costs 18.16
	// more than the read itself, and the reader sorts once.
	ownerPartRowsHead = `SELECT _part, target_id, sum(humans) AS n FROM click_owner_totals
WHERE kind = ? AND owner_id = ?`
	ownerPartRowsTail      = ` GROUP BY _part, target_id HAVING n > 0`
	ownerPartRowsSQL       = ownerPartRowsHead + ownerPartRowsTail
	ownerPartRowsExceptSQL = ownerPartRowsHead + ` AND _part NOT IN ?` + ownerPartRowsTail
	ownerTableEngineSQL    = `SELECT engine FROM system.tables
WHERE database = currentDatabase() AND name = 'click_owner_totals'`
)

// ReadOwnerRows returns how many rows of click_owner_totals hold owner's
// targets of kind: at least the number of targets in its ranking.
func ReadOwnerRows(ctx context.Context, conn driver.Conn, kind click.Kind, owner int64) (uint64, error) {
	kn, err := KindName(kind)
	if err != nil {
		return 0, err
	}
	var n uint64
	if err := conn.QueryRow(ctx, ownerRowsSQL, kn, uint64(owner)).Scan(&n); err != nil {
		return 0, Unavailable("count owner's rows", err)
	}
	return n, nil
}

// ReadOwnerPartRows returns owner's targets of kind with human clicks in
// each active part of click_owner_totals but the parts except names, by
// part name, in no order: one read, one snapshot of the parts. A part
// holding none of the owner's rows is missing from the result. A
// ClickHouse failure wraps link.ErrUnavailable.
func ReadOwnerPartRows(ctx context.Context, conn driver.Conn, kind click.Kind, owner int64, except []string) (map[string][]TargetClicks, error) {
	kn, err := KindName(kind)
	if err != nil {
		return nil, err
	}
	query, args := ownerPartRowsSQL, []any{kn, uint64(owner)}
	if len(except) > 0 {
		set := make([]any, len(except))
		for i, n := range except {
			set[i] = n
		}
		query, args = ownerPartRowsExceptSQL, append(args, clickhouse.GroupSet{Value: set})
	}
	rows, err := conn.Query(ctx, query, args...)
	if err != nil {
		return nil, Unavailable("read owner's part rows", err)
	}
	defer rows.Close()
	out := map[string][]TargetClicks{}
	var part string
	var id, n uint64
	for rows.Next() {
		if err := rows.Scan(&part, &id, &n); err != nil {
			return nil, Unavailable("scan owner's part rows", err)
		}
		out[part] = append(out[part], TargetClicks{ID: int64(id), Clicks: int64(n)})
	}
	if err := rows.Err(); err != nil {
		return nil, Unavailable("read owner's part rows", err)
	}
	return out, nil
}

// OwnerTableDistributed reports whether click_owner_totals is a
// Distributed table (a cluster), whose part names do not identify rows.
func OwnerTableDistributed(ctx context.Context, conn driver.Conn) (bool, error) {
	var engine string
	if err := conn.QueryRow(ctx, ownerTableEngineSQL).Scan(&engine); err != nil {
		return false, Unavailable("read click_owner_totals' engine", err)
	}
	return engine == "Distributed", nil
}

// PartRange is where a part's name places it: its partition and the
// range of insert blocks its rows came from. A merge's range covers the
// parts it took in; a mutation rewrites a part under the same range.
type PartRange struct {
	Partition string
	Min, Max  int64
}

// Covers reports whether q's blocks are all within p's: p is q, a merge
// that took q in, or q rewritten by a mutation.
func (p PartRange) Covers(q PartRange) bool {
	return p.Partition == q.Partition && p.Min <= q.Min && q.Max <= p.Max
}

// ParsePartName reads a MergeTree part name,
// <partition>_<min block>_<max block>_<level>[_<mutation version>]; ok is
// false for anything else. Partition ids hold no '_' (digits, "all", or
// a hash).
func ParsePartName(name string) (r PartRange, ok bool) {
	f := strings.Split(name, "_")
	if len(f) != 4 && len(f) != 5 || f[0] == "" {
		return PartRange{}, false
	}
	var n [4]int64
	for i, v := range f[1:] {
		var err error
		if n[i], err = strconv.ParseInt(v, 10, 64); err != nil || n[i] < 0 {
			return PartRange{}, false
		}
	}
	if n[1] < n[0] {
		return PartRange{}, false
	}
	return PartRange{Partition: f[0], Min: n[0], Max: n[1]}, true
}

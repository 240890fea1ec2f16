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
// owner's rows part by part can bring its ranking up to date from the
// names of the table's active parts (ReadActiveParts: system.parts, no
// row read, ~2 ms) and the owner's rows in only the parts it has not seen
// (ReadOwnerPartRows with names: a recent insert's part is a few rows),
// instead of summing all of the owner's rows again (13 ms at rest for a
// 100k-link owner on 18.16, 18-40 ms beside an insert's merges).
// admin/internal/stats, partrank.go.
//
// Part names are only meaningful on one server: on a cluster each shard
// names its own parts. OwnerTableDistributed tells the two apart.

// TargetClicks is a target's human clicks (in one part).
type TargetClicks struct {
	ID     int64
	Clicks int64
}

const (
	activePartsSQL = `SELECT name FROM system.parts
WHERE database = currentDatabase() AND table = 'click_owner_totals' AND active`
	ownerRowsSQL = `SELECT count() FROM click_owner_totals WHERE kind = ? AND owner_id = ?`
	// The rows come unsorted: sorting 100k rows on two keys costs 18.16
	// more than the read itself, and the reader sorts once.
	ownerPartRowsHead = `SELECT _part, target_id, sum(humans) AS n FROM click_owner_totals
WHERE kind = ? AND owner_id = ?`
	ownerPartRowsTail  = ` GROUP BY _part, target_id HAVING n > 0`
	ownerPartRowsSQL   = ownerPartRowsHead + ownerPartRowsTail
	ownerPartRowsInSQL = ownerPartRowsHead + ` AND _part IN ?` + ownerPartRowsTail
	ownerPartSumsSQL   = `SELECT _part, sum(humans) FROM click_owner_totals
WHERE kind = ? AND owner_id = ? AND _part IN ? GROUP BY _part`
	ownerTableEngineSQL = `SELECT engine FROM system.tables
WHERE database = currentDatabase() AND name = 'click_owner_totals'`
)

// ReadActiveParts returns the names of click_owner_totals' active parts.
// A ClickHouse failure wraps link.ErrUnavailable.
func ReadActiveParts(ctx context.Context, conn driver.Conn) ([]string, error) {
	rows, err := conn.Query(ctx, activePartsSQL)
	if err != nil {
		return nil, Unavailable("read active parts", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, Unavailable("scan active parts", err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, Unavailable("read active parts", err)
	}
	return names, nil
}

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
// each of the named parts (all of the owner's parts when names is nil),
// by part name, in no order. A part holding none of the owner's rows, or
// gone since (merged), is missing from the result. A ClickHouse failure
// wraps link.ErrUnavailable.
func ReadOwnerPartRows(ctx context.Context, conn driver.Conn, kind click.Kind, owner int64, names []string) (map[string][]TargetClicks, error) {
	kn, err := KindName(kind)
	if err != nil {
		return nil, err
	}
	query, args := ownerPartRowsSQL, []any{kn, uint64(owner)}
	if names != nil {
		query, args = ownerPartRowsInSQL, append(args, nameSet(names))
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

// ReadOwnerPartSums returns owner's human clicks of kind in each of the
// named parts; a part holding none of them, or gone since, is missing.
// A ClickHouse failure wraps link.ErrUnavailable.
func ReadOwnerPartSums(ctx context.Context, conn driver.Conn, kind click.Kind, owner int64, names []string) (map[string]uint64, error) {
	kn, err := KindName(kind)
	if err != nil {
		return nil, err
	}
	rows, err := conn.Query(ctx, ownerPartSumsSQL, kn, uint64(owner), nameSet(names))
	if err != nil {
		return nil, Unavailable("read owner's part sums", err)
	}
	defer rows.Close()
	out := map[string]uint64{}
	for rows.Next() {
		var part string
		var n uint64
		if err := rows.Scan(&part, &n); err != nil {
			return nil, Unavailable("scan owner's part sums", err)
		}
		out[part] = n
	}
	if err := rows.Err(); err != nil {
		return nil, Unavailable("read owner's part sums", err)
	}
	return out, nil
}

// nameSet is names as an IN operand.
func nameSet(names []string) clickhouse.GroupSet {
	set := make([]any, len(names))
	for i, n := range names {
		set[i] = n
	}
	return clickhouse.GroupSet{Value: set}
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

// PartRange is where a part's name places it: its partition, the range
// of insert blocks its rows came from, its merge level and the mutation
// version its rows went through (0: none). A mutation rewrites a part
// under the same range and level with a higher version, and merges carry
// the highest version of the parts they took in.
type PartRange struct {
	Partition string
	Min, Max  int64
	Level     int64
	Version   int64
}

// Covers reports whether q's blocks are all within p's: p is q, a merge
// that took q in, or q rewritten by a mutation.
func (p PartRange) Covers(q PartRange) bool {
	return p.Partition == q.Partition && p.Min <= q.Min && q.Max <= p.Max
}

// Rewrites reports whether p is q rewritten by a mutation: the same
// blocks at the same level (a merge raises the level).
func (p PartRange) Rewrites(q PartRange) bool {
	return p.Partition == q.Partition && p.Min == q.Min && p.Max == q.Max && p.Level == q.Level
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
	return PartRange{Partition: f[0], Min: n[0], Max: n[1], Level: n[2], Version: n[3]}, true
}

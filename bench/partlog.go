package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// partWork is what ClickHouse spent on one table of the bench database
// during a run's window, from system.part_log: the parts its inserts wrote
// (NEW_PART) and the merges that ended in the window (MERGE_PARTS), each
// with its summed wall time (one thread per part or merge) and rows.
type partWork struct {
	Table     string `json:"table"`
	NewParts  uint64 `json:"new_parts"`
	NewMs     uint64 `json:"new_ms"`
	NewRows   uint64 `json:"new_rows"`
	Merges    uint64 `json:"merges"`
	MergeMs   uint64 `json:"merge_ms"`
	MergeRows uint64 `json:"merge_rows"`
}

// partLogSQL sums the window's part events of the current database per
// table. event_time has whole seconds (rounded down): the window is the
// seconds it touches.
const partLogSQL = `SELECT table, toString(event_type) AS kind, count(), sum(duration_ms), sum(rows)
FROM system.part_log
WHERE database = currentDatabase() AND event_type IN ('NEW_PART', 'MERGE_PARTS')
	AND event_time >= toDateTime(?) AND event_time <= toDateTime(?)
GROUP BY table, kind`

// readPartWork returns the part work of [from, to], most expensive table
// first; nil without an error when the server keeps no part_log (it is a
// server setting: deploy/local/stack.sh turns it on).
func readPartWork(ctx context.Context, ch driver.Conn, from, to time.Time) ([]partWork, error) {
	// The server writes its logs every flush interval (and creates the
	// table on the first write): the window's last events must be in the
	// table before they are read.
	if err := ch.Exec(ctx, `SYSTEM FLUSH LOGS`); err != nil {
		return nil, fmt.Errorf("flush ClickHouse's logs: %w", err)
	}
	var n uint64
	if err := ch.QueryRow(ctx, `SELECT count() FROM system.tables WHERE database = 'system' AND name = 'part_log'`).Scan(&n); err != nil {
		return nil, fmt.Errorf("look for system.part_log: %w", err)
	}
	if n == 0 {
		return nil, nil
	}
	rows, err := ch.Query(ctx, partLogSQL, uint32(from.Unix()), uint32(to.Unix()))
	if err != nil {
		return nil, fmt.Errorf("read system.part_log: %w", err)
	}
	defer rows.Close()
	byTable := map[string]*partWork{}
	for rows.Next() {
		var table, kind string
		var count, ms, n uint64
		if err := rows.Scan(&table, &kind, &count, &ms, &n); err != nil {
			return nil, fmt.Errorf("scan system.part_log: %w", err)
		}
		w := byTable[table]
		if w == nil {
			w = &partWork{Table: table}
			byTable[table] = w
		}
		if kind == "NEW_PART" {
			w.NewParts, w.NewMs, w.NewRows = count, ms, n
		} else {
			w.Merges, w.MergeMs, w.MergeRows = count, ms, n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read system.part_log: %w", err)
	}
	out := make([]partWork, 0, len(byTable))
	for _, w := range byTable {
		out = append(out, *w)
	}
	slices.SortFunc(out, func(a, b partWork) int {
		return cmp.Or(cmp.Compare(b.NewMs+b.MergeMs, a.NewMs+a.MergeMs), strings.Compare(a.Table, b.Table))
	})
	return out, nil
}

// writePartTable lists ClickHouse's part work by table for the kurz run of
// each of files (nil entries and runs without part work are left out).
func writePartTable(b *strings.Builder, files []*runFile) {
	var rows []string
	for _, f := range files {
		if f == nil || f.Runs[0].Split == nil {
			continue
		}
		k := f.Runs[0]
		for _, w := range k.Split.ClickHouseParts {
			per := "-"
			if k.Split.Redirects > 0 {
				per = fmt.Sprintf("%.1f", float64(w.NewMs+w.MergeMs)*1000/float64(k.Split.Redirects))
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | %d | %d | %d | %d | %d | %d | %s |",
				k.Name, w.Table, w.NewParts, w.NewMs, w.NewRows, w.Merges, w.MergeMs, w.MergeRows, per))
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n## ClickHouse's work by table\n\n")
	b.WriteString("The first round of each closed loop: the events of `system.part_log` that ended in the kurz run's CPU-split window, " +
		"the parts its inserts wrote (new parts) and the merges that followed, with their wall time summed over parts (one thread each) " +
		"and per 1,000 counted redirects. A merge that began before the window counts here when it ended in it.\n\n")
	b.WriteString("| run | table | new parts | ms | rows | merges | ms | rows | ms per 1k counted redirects |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
}

package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore/chtest"
)

// The local stack's ClickHouse keeps system.part_log: a run's window must
// see the parts its inserts wrote and the merge that followed, by table,
// and nothing of another database.
func TestReadPartWork(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ch, _ := chtest.New(t)
	other, _ := chtest.New(t)
	for _, c := range []struct {
		conn driver.Conn
		n    int
	}{{ch, 3}, {other, 1}} {
		if err := c.conn.Exec(ctx, `CREATE TABLE bench_parts (x UInt64) ENGINE = MergeTree ORDER BY x`); err != nil {
			t.Fatal(err)
		}
		for i := range c.n {
			// One part per statement; INSERT … SELECT, not VALUES (which
			// hangs on 18.16 through the native protocol).
			if err := c.conn.Exec(ctx, `INSERT INTO bench_parts (x) SELECT number + ? FROM system.numbers LIMIT 1000`, uint64(i*1000)); err != nil {
				t.Fatal(err)
			}
		}
	}
	from := time.Now().Add(-time.Minute)
	if err := ch.Exec(ctx, `OPTIMIZE TABLE bench_parts FINAL`); err != nil {
		t.Fatal(err)
	}
	// A background merge may have joined the parts before OPTIMIZE, or
	// still be running when OPTIMIZE skips its parts: read until a merge
	// of all 3000 rows has ended.
	var w partWork
	for range 50 {
		got, err := readPartWork(ctx, ch, from, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(got, func(p partWork) bool { return p.Table == "bench_parts" })
		if i < 0 {
			t.Fatalf("no part work of bench_parts in %+v (is part_log on in deploy/local/stack.sh? a running server reads it at start)", got)
		}
		if w = got[i]; w.MergeRows >= 3000 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if w.NewParts != 3 || w.NewRows != 3000 || w.Merges < 1 || w.MergeRows < 3000 {
		t.Errorf("bench_parts: %+v, want 3 new parts of 3000 rows and at least one merge of them", w)
	}
	// A window before the inserts holds none of them.
	if got, err := readPartWork(ctx, ch, from.Add(-time.Hour), from.Add(-30*time.Minute)); err != nil || len(got) != 0 {
		t.Errorf("empty window: %+v, %v; want nothing", got, err)
	}
}

// latest.md lists the part work of each closed loop's first round, per
// table, with its cost per 1,000 counted redirects.
func TestLatestPartTable(t *testing.T) {
	dir := copyResults(t)
	if md := latestOf(t, dir); strings.Contains(md, "## ClickHouse's work by table") {
		t.Errorf("report without part work has the section:\n%s", md)
	}
	editRuns(t, dir, "closed.json", func(f *runFile) {
		f.Runs[0].Split.ClickHouseParts = []partWork{
			{Table: "click_dims_daily", NewParts: 5, NewMs: 681, NewRows: 1123051, Merges: 1, MergeMs: 976, MergeRows: 949544},
			{Table: "click_events", NewParts: 5, NewMs: 596, NewRows: 866969},
		}
	})
	md := latestOf(t, dir)
	for _, want := range []string{
		"## ClickHouse's work by table",
		"| direct | click_dims_daily | 5 | 681 | 1123051 | 1 | 976 | 949544 | 3.3 |", // 1657 ms over 495559 redirects
		"| direct | click_events | 5 | 596 | 866969 | 0 | 0 | 0 | 1.2 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

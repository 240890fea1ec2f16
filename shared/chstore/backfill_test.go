package chstore_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// upTo is the embedded migrations numbered below limit.
func upTo(t *testing.T, limit uint32) fs.FS {
	t.Helper()
	out := fstest.MapFS{}
	entries, err := fs.ReadDir(embedded(t), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		var v uint32
		if _, err := fmt.Sscanf(e.Name(), "%d_", &v); err != nil {
			t.Fatalf("migration %s: %v", e.Name(), err)
		}
		if v >= limit {
			continue
		}
		b, err := fs.ReadFile(embedded(t), e.Name())
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = &fstest.MapFile{Data: b}
	}
	return out
}

// backfillCounts are what the tables of 0009 and 0010 must agree on with
// the raw clicks.
type backfillCounts struct {
	visitors, hourlyVisitors, ownerHumans, ownerVisitors uint64
}

func readBackfill(t *testing.T, conn driver.Conn) (got, want backfillCounts) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []struct {
		sql string
		dst *uint64
	}{
		{`SELECT sum(u) FROM (SELECT uniqIfMerge(visitors) AS u FROM click_visitors GROUP BY kind, target_id)`, &got.visitors},
		{`SELECT sum(u) FROM (SELECT uniqIf(visitor, class = 'human') AS u FROM ` + click.RawSource + ` GROUP BY kind, target_id)`, &want.visitors},
		{`SELECT sum(u) FROM (SELECT uniqIfMerge(visitors) AS u FROM click_hourly_visitors GROUP BY kind, target_id, hour)`, &got.hourlyVisitors},
		{`SELECT sum(u) FROM (SELECT uniqIf(visitor, class = 'human') AS u FROM ` + click.RawSource + ` GROUP BY kind, target_id, toStartOfHour(ts))`, &want.hourlyVisitors},
		{`SELECT countMerge(humans) FROM click_owner_daily`, &got.ownerHumans},
		{`SELECT count() FROM ` + click.RawSource + ` WHERE class = 'human'`, &want.ownerHumans},
		{`SELECT sum(u) FROM (SELECT uniqHLL12Merge(visitors) AS u FROM click_owner_daily GROUP BY kind, owner_id, day)`, &got.ownerVisitors},
		{`SELECT sum(u) FROM (SELECT uniqHLL12(visitor) AS u FROM ` + click.RawSource + ` WHERE class = 'human' GROUP BY kind, owner_id, toDate(ts))`, &want.ownerVisitors},
	} {
		if err := conn.QueryRow(ctx, q.sql).Scan(q.dst); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	return got, want
}

// TestVisitorAndOwnerTablesBackfilled: clicks stored before 0009 and 0010
// are in their tables afterwards, and clicks after are added by the
// views; running 0009 again (a migrator that died, or two at once) leaves
// every distinct count as it was.
func TestVisitorAndOwnerTablesBackfilled(t *testing.T) {
	conn := emptyDB(t)
	ctx := context.Background()
	if err := chstore.Migrate(ctx, conn, upTo(t, 9)); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 3, 10, 8, 0, 0, 0, time.UTC)
	insert := func(from uint64, table string) {
		var rows []click.Row
		for i := from; i < from+300; i++ {
			rows = append(rows, click.Row{ClickID: i, UnixNano: base.Add(time.Duration(i%50) * 37 * time.Minute).UnixNano(),
				Kind: click.Kind(1 + i%2), Class: click.Class(i % 5 / 4), Visitor: i % 23,
				OwnerID: 1 + i%3, LinkID: 10 + i%4, QRID: 10 + i%4})
		}
		var b click.Block
		if err := chstore.InsertRowsInto(ctx, conn, table, &b, rows, chstore.Chunking{}); err != nil {
			t.Fatal(err)
		}
	}
	// Before 0011 the clicks went to clicks; after it, to click_events.
	// 0012 stops feeding click_visitors and click_hourly_visitors
	// (TestUniquesBackfilled covers what replaces them).
	insert(0, "clicks")
	if err := chstore.Migrate(ctx, conn, upTo(t, 12)); err != nil {
		t.Fatal(err)
	}
	got, want := readBackfill(t, conn)
	if got != want || want.ownerHumans == 0 || want.visitors == 0 {
		t.Fatalf("after the backfill: %+v, raw %+v", got, want)
	}
	insert(1000, click.Table)
	runAgain(t, conn, "0009_click_visitors.sql")
	got, want = readBackfill(t, conn)
	if got != want {
		t.Fatalf("after more clicks and 0009 again: %+v, raw %+v", got, want)
	}
}

// runAgain runs an embedded migration file's statements once more, as a
// migrator that died before recording it (or a second one at once) would.
func runAgain(t *testing.T, conn driver.Conn, name string) {
	t.Helper()
	body, err := fs.ReadFile(embedded(t), name)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range chstore.SplitStatements(string(body)) {
		if err := conn.Exec(context.Background(), stmt); err != nil && !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("%s again: %v", name, err)
		}
	}
}

package chstore_test

import (
	"context"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

func TestHeldTables(t *testing.T) {
	for _, c := range []struct {
		body string
		want []string
	}{
		{"-- kurz:hold click_events clicks\nDROP TABLE x;", []string{"click_events", "clicks"}},
		{"-- kurz:hold click_events\n", []string{"click_events"}},
		{"-- kurz:hold\nDROP TABLE x;", nil},
		{"-- a comment\n-- kurz:hold click_events\n", nil}, // only as the first line
		{"DROP TABLE x; -- kurz:hold click_events\n", nil},
		{"-- kurz:holdclick_events\n", nil},
		{"", nil},
	} {
		if got := chstore.HeldTables(c.body); !slices.Equal(got, c.want) {
			t.Errorf("HeldTables(%q) = %q, want %q", c.body, got, c.want)
		}
	}
}

// counterReads are the counters 0013 changes the feeding of, each as
// sorted text rows, beside the same numbers computed from the raw rows of
// both raw tables. Equal text means every click counted exactly once.
var counterReads = []struct{ name, counters, raw string }{
	{"click_totals",
		`SELECT kind, target_id, countIfMerge(humans), countIfMerge(bots), countIfMerge(previews), countIfMerge(prefetches)
		FROM click_totals GROUP BY kind, target_id`,
		`SELECT kind, target_id, countIf(class = 'human'), countIf(class = 'bot'), countIf(class = 'preview'), countIf(class = 'prefetch')
		FROM (SELECT kind, target_id, class FROM clicks UNION ALL SELECT kind, target_id, class FROM click_events) GROUP BY kind, target_id`},
	{"click_hourly",
		`SELECT kind, target_id, hour, countIfMerge(humans), countIfMerge(bots), countIfMerge(previews), countIfMerge(prefetches)
		FROM click_hourly GROUP BY kind, target_id, hour`,
		`SELECT kind, target_id, hour, countIf(class = 'human'), countIf(class = 'bot'), countIf(class = 'preview'), countIf(class = 'prefetch')
		FROM (SELECT kind, target_id, toStartOfHour(ts) AS hour, class FROM clicks
			UNION ALL SELECT kind, target_id, toStartOfHour(ts) AS hour, class FROM click_events) GROUP BY kind, target_id, hour`},
	{"click_owner_totals",
		`SELECT kind, owner_id, target_id, sum(humans) AS n FROM click_owner_totals GROUP BY kind, owner_id, target_id HAVING n > 0`,
		`SELECT kind, owner_id, target_id, count() FROM (SELECT kind, owner_id, target_id, class FROM clicks
			UNION ALL SELECT kind, owner_id, target_id, class FROM click_events) WHERE class = 'human' GROUP BY kind, owner_id, target_id`},
}

// textRows runs q and returns its rows as sorted text lines.
func textRows(t *testing.T, conn driver.Conn, q string) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	types := rows.ColumnTypes()
	var out []string
	for rows.Next() {
		dest := make([]any, len(types))
		for i, ct := range types {
			dest[i] = reflect.New(ct.ScanType()).Interface()
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		var line strings.Builder
		for _, d := range dest {
			fmt.Fprint(&line, reflect.ValueOf(d).Elem().Interface(), "\t")
		}
		out = append(out, line.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// checkCounters fails unless every counter equals the raw rows' count.
func checkCounters(t *testing.T, conn driver.Conn, when string) {
	t.Helper()
	for _, c := range counterReads {
		got, want := textRows(t, conn, c.counters), textRows(t, conn, c.raw)
		if len(want) < 2 {
			t.Fatalf("%s: %s: the raw rows give %d keys; the test needs clicks", when, c.name, len(want))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %s holds %d keys, the raw rows %d; first difference %q", when, c.name, len(got), len(want), firstDiff(got, want))
		}
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] + " / " + b[i]
		}
	}
	return fmt.Sprintf("lengths %d / %d", len(a), len(b))
}

// columns lists table's columns.
func columns(t *testing.T, conn driver.Conn, table string) []string {
	t.Helper()
	var got []struct {
		Name string `ch:"name"`
	}
	if err := conn.Select(context.Background(), &got,
		"SELECT name FROM system.columns WHERE database = currentDatabase() AND table = ? ORDER BY name", table); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(got))
	for i, g := range got {
		out[i] = g.Name
	}
	return out
}

// TestHoldRefusesInserts: while a raw table is held, an insert into it
// fails and writes nothing, neither raw rows nor counters; reads of named
// columns go on; after the release inserts count again.
func TestHoldRefusesInserts(t *testing.T) {
	conn := emptyDB(t)
	ctx := context.Background()
	if err := chstore.Migrate(ctx, conn, embedded(t)); err != nil {
		t.Fatal(err)
	}
	insertVisits(t, conn, click.Table, visits(0, 300))
	if err := chstore.Hold(ctx, conn, click.Table, 99); err != nil {
		t.Fatal(err)
	}
	if err := chstore.Hold(ctx, conn, click.Table, 99); err != nil { // a second hold is a no-op
		t.Fatal(err)
	}
	var b click.Block
	err := chstore.InsertRowsInto(ctx, conn, click.Table, &b, visits(1000, 300), chstore.Chunking{})
	if err == nil {
		t.Fatal("an insert into a held table succeeded")
	}
	var n uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM "+click.Table+" WHERE click_id >= 0").Scan(&n); err != nil {
		t.Fatalf("read of a held table: %v", err)
	}
	if n != 300 {
		t.Errorf("held: %d raw rows, want the 300 from before", n)
	}
	checkCounters(t, conn, "held")
	if err := chstore.Release(ctx, conn, click.Table, 99); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(columns(t, conn, click.Table), chstore.HoldColumn(99)) {
		t.Error("the hold column stayed after the release")
	}
	insertVisits(t, conn, click.Table, visits(2000, 300))
	checkCounters(t, conn, "released")
}

// TestDeadVisitorStatesDropped: 0013 replaces the counters' views under a
// hold. Clicks counted before it stay counted, clicks after it through
// either raw table count once, the columns are gone, running the file
// again changes nothing, and an inserter running all the while loses or
// doubles nothing: each of its inserts either failed whole (held) or is
// counted once.
func TestDeadVisitorStatesDropped(t *testing.T) {
	conn := emptyDB(t)
	ctx := context.Background()
	if err := chstore.Migrate(ctx, conn, upTo(t, 13)); err != nil {
		t.Fatal(err)
	}
	insertVisits(t, conn, "clicks", visits(0, 400))
	insertVisits(t, conn, click.Table, visits(1000, 400))
	checkCounters(t, conn, "before 0013")

	var stop atomic.Bool
	var refused, accepted atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Both raw tables in turn: 0013 replaces the views of both.
		tables := []string{click.Table, "clicks"}
		for id := uint64(100_000); !stop.Load(); id += 50 {
			var b click.Block
			if err := chstore.InsertRowsInto(ctx, conn, tables[id/50%2], &b, visits(id, 50), chstore.Chunking{}); err != nil {
				refused.Add(1)
				continue
			}
			accepted.Add(1)
		}
	}()
	err := chstore.Migrate(ctx, conn, embedded(t))
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("inserts during the migration: %d accepted, %d refused", accepted.Load(), refused.Load())
	if refused.Load() == 0 {
		t.Fatal("no insert was refused: the inserter never met the hold, so the test proved nothing")
	}
	checkCounters(t, conn, "after 0013 with inserts running")
	for _, table := range []string{"click_hourly", "click_totals", "click_counts_batch"} {
		if cols := columns(t, conn, table); len(cols) == 0 || slices.Contains(cols, "visitors") {
			t.Errorf("%s has columns %v; want it, without visitors", table, cols)
		}
	}
	for _, table := range []string{click.Table, "clicks"} {
		if held := holdColumns(columns(t, conn, table)); len(held) > 0 {
			t.Errorf("%s is still held: %v", table, held)
		}
	}

	insertVisits(t, conn, "clicks", visits(2000, 300))
	insertVisits(t, conn, click.Table, visits(3000, 300))
	checkCounters(t, conn, "after more clicks through both raw tables")

	// Through the runner, as a file it has not seen: held, every statement
	// again, released.
	body, err := fs.ReadFile(embedded(t), "0013_drop_dead_visitor_states.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := chstore.Migrate(ctx, conn, fstest.MapFS{"9013_again.sql": {Data: body}}); err != nil {
		t.Fatalf("0013 again: %v", err)
	}
	insertVisits(t, conn, click.Table, visits(4000, 300))
	checkCounters(t, conn, "after 0013 ran again")
}

// TestMigrateReleasesAHoldLeftBehind: a run that died after recording a
// held file's version but before the release leaves inserts refused; the
// next run releases them.
func TestMigrateReleasesAHoldLeftBehind(t *testing.T) {
	conn := emptyDB(t)
	ctx := context.Background()
	if err := chstore.Migrate(ctx, conn, embedded(t)); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{click.Table, "clicks"} {
		if err := chstore.Hold(ctx, conn, table, 13); err != nil {
			t.Fatal(err)
		}
	}
	if err := chstore.Migrate(ctx, conn, embedded(t)); err != nil {
		t.Fatal(err)
	}
	insertVisits(t, conn, click.Table, visits(0, 100))
	insertVisits(t, conn, "clicks", visits(1000, 100))
	checkCounters(t, conn, "after the release")
}

// TestMigrateReleasesTheFirstReleasesHold: the first release with 0013
// held with a column named for no file (kurz_hold). A run of it that died
// half-way left that column; a run of this release applies 0013 and 0014
// and releases it too.
func TestMigrateReleasesTheFirstReleasesHold(t *testing.T) {
	conn := emptyDB(t)
	ctx := context.Background()
	if err := chstore.Migrate(ctx, conn, upTo(t, 13)); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{click.Table, "clicks"} {
		if err := conn.Exec(ctx, "ALTER TABLE "+table+" ADD COLUMN kurz_hold UInt8 DEFAULT throwIf(kind = kind)"); err != nil {
			t.Fatal(err)
		}
	}
	if err := chstore.Migrate(ctx, conn, embedded(t)); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{click.Table, "clicks"} {
		if held := holdColumns(columns(t, conn, table)); len(held) > 0 {
			t.Errorf("%s is still held: %v", table, held)
		}
	}
	insertVisits(t, conn, click.Table, visits(0, 100))
	insertVisits(t, conn, "clicks", visits(1000, 100))
	checkCounters(t, conn, "after the release")
}

// holdColumns are the hold columns among cols.
func holdColumns(cols []string) []string {
	var out []string
	for _, c := range cols {
		if strings.HasPrefix(c, "kurz_hold") {
			out = append(out, c)
		}
	}
	return out
}

// TestEarlierRunKeepsALaterHold: a run that knows the files up to 0013
// (an admin of an earlier version) on a database whose 0014 failed
// half-way releases no hold of 0014's: inserts stay refused until a run
// that knows 0014 goes through.
func TestEarlierRunKeepsALaterHold(t *testing.T) {
	conn := emptyDB(t)
	ctx := context.Background()
	if err := chstore.Migrate(ctx, conn, upTo(t, 14)); err != nil {
		t.Fatal(err)
	}
	if err := chstore.Hold(ctx, conn, click.Table, 14); err != nil {
		t.Fatal(err)
	}
	if err := chstore.Migrate(ctx, conn, upTo(t, 14)); err != nil {
		t.Fatal(err)
	}
	var b click.Block
	if err := chstore.InsertRowsInto(ctx, conn, click.Table, &b, visits(0, 10), chstore.Chunking{}); err == nil {
		t.Fatal("an earlier run released a later file's hold")
	}
	if err := chstore.Migrate(ctx, conn, embedded(t)); err != nil {
		t.Fatal(err)
	}
	insertVisits(t, conn, click.Table, visits(100, 10))
}

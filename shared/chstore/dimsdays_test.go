package chstore_test

import (
	"context"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// breakdownExpanded is click_breakdown_days (0015) as (kind, target_id,
// day, dim, value, hits) rows, every dimension its own row: a
// referrer_category row is a referrer and a category, a client row a
// browser, a system and a device class.
const breakdownExpanded = `SELECT kind, target_id, day, d.1 AS dim, d.2 AS value, hits FROM (
	SELECT kind, target_id, day, hits,
		arrayJoin(multiIf(grp = 'referrer_category', [('referrer', a), ('category', b)],
			grp = 'client', [('browser', a), ('os', b), ('device', c)], [(toString(grp), a)])) AS d
	FROM click_breakdown_days)`

// dimsDays is the daily breakdown (0014's rows copied by 0015, and 0015's
// since) beside the same numbers from click_events' raw rows: equal text
// means every human click's six dimensions counted once.
const (
	dimsDays = `SELECT kind, target_id, day, dim, value, sum(hits) AS n FROM (` + breakdownExpanded + `)
		GROUP BY kind, target_id, day, dim, value HAVING n > 0`
	dimsRaw = `SELECT kind, target_id, toDate(ts) AS day, d.1 AS dim, d.2 AS value, count() FROM click_events
		ARRAY JOIN [('country', country), ('referrer', referrer_host), ('browser', browser), ('os', os),
			('category', toString(referrer_category)), ('device', device)] AS d
		WHERE class = 'human' GROUP BY kind, target_id, day, dim, value`
)

func checkDims(t *testing.T, conn driver.Conn, when string) {
	t.Helper()
	got, want := textRows(t, conn, dimsDays), textRows(t, conn, dimsRaw)
	if len(want) < 100 {
		t.Fatalf("%s: the raw rows give %d breakdown keys; the test needs more", when, len(want))
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: the daily breakdown holds %d keys, the raw rows %d; first difference %q", when, len(got), len(want), firstDiff(got, want))
	}
}

func insertClicks(ctx context.Context, conn driver.Conn, rows []click.Row) error {
	var b click.Block
	return chstore.InsertRowsInto(ctx, conn, click.Table, &b, rows, chstore.Chunking{})
}

// clickedBefore returns a database migrated up to (not including) file
// version v, with 2,000 clicks (chtest.Clicks) counted, and their "now".
func clickedBefore(t *testing.T, v uint32) (driver.Conn, time.Time) {
	t.Helper()
	conn := emptyDB(t)
	ctx := context.Background()
	if err := chstore.Migrate(ctx, conn, upTo(t, v)); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if err := insertClicks(ctx, conn, chtest.Clicks(now, 2000)); err != nil {
		t.Fatal(err)
	}
	return conn, now
}

// diedHalfWay leaves file (version v) as a run that died half-way does:
// inserts into tables held, every statement but the last `left` run. It
// fails unless an insert is then refused.
func diedHalfWay(t *testing.T, conn driver.Conn, now time.Time, file string, v uint32, left int, tables ...string) {
	t.Helper()
	ctx := context.Background()
	body, err := fs.ReadFile(embedded(t), file)
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		if err := chstore.Hold(ctx, conn, table, v); err != nil {
			t.Fatal(err)
		}
	}
	stmts := chstore.SplitStatements(string(body))
	for _, stmt := range stmts[:len(stmts)-left] {
		if err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s half-way: %v", file, err)
		}
	}
	if err := insertClicks(ctx, conn, chtest.Clicks(now, 10)); err == nil {
		t.Fatal("an insert went through while held")
	}
}

// migrateInserting runs every migration while an inserter sends the same
// 100 clicks again and again, and fails unless a hold refused some of
// them (else the test proves nothing about inserts during the migration).
func migrateInserting(t *testing.T, conn driver.Conn, now time.Time) {
	t.Helper()
	ctx := context.Background()
	var stop atomic.Bool
	var refused atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rows := chtest.Clicks(now, 100)
		for !stop.Load() {
			if err := insertClicks(ctx, conn, rows); err != nil {
				refused.Add(1)
			}
		}
	}()
	err := chstore.Migrate(ctx, conn, embedded(t))
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if refused.Load() == 0 {
		t.Fatal("no insert was refused: the inserter never met the hold, so the test proved nothing")
	}
}

// TestDimsDaysCopied: 0014 copies the daily breakdown into an Enum8-keyed
// table under a hold. (The run that goes through applies 0015 too, which
// copies 0014's table on: the checks read what 0014 copied through it.) After a run that died half-way and the next one
// that went through, the breakdown of clicks counted before it is in the
// new table, and clicks during it (an inserter running all the while) and
// after it count once. TestClickEventsCountAsClicks compares the
// product's range reads with the raw rows.
func TestDimsDaysCopied(t *testing.T) {
	conn, now := clickedBefore(t, 14)
	ctx := context.Background()
	// A run that died half-way: held, the old view dropped, the new table
	// made and filled, no new view yet. The next run goes through under
	// the same hold.
	diedHalfWay(t, conn, now, "0014_click_dims_days.sql", 14, 1, click.Table, "clicks")
	migrateInserting(t, conn, now)
	checkDims(t, conn, "after 0014 with inserts running")
	checkCounters(t, conn, "after 0014 with inserts running")

	// The reads of the breakdown find the copied days.
	from := now.Truncate(24*time.Hour).AddDate(0, 0, -30)
	end := now.Truncate(24*time.Hour).AddDate(0, 0, 1)
	got, err := chstore.ReadRangeBreakdown(ctx, conn, click.KindLink, 7, from, end)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Breakdown.Countries) == 0 || len(got.Devices) == 0 || len(got.Breakdown.Browsers) == 0 {
		t.Errorf("range breakdown after 0014: %+v", got)
	}

	if err := insertClicks(ctx, conn, chtest.Clicks(now, 500)); err != nil {
		t.Fatal(err)
	}
	checkDims(t, conn, "after more clicks")

}

package chstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// uniquesGrains are 0012's tables and the raw GROUP BY each must match.
var uniquesGrains = []struct{ table, keys, rawKeys string }{
	{"click_uniques", "kind, target_id", "kind, target_id"},
	{"click_daily_uniques", "kind, target_id, day", "kind, target_id, toDate(ts)"},
	{"click_hourly_uniques", "kind, target_id, hour", "kind, target_id, toStartOfHour(ts)"},
}

// uniquesCount is one grain's distinct visitors summed over its keys: from
// the stored sketches, from one sketch of the raw rows per key, exactly
// from the raw rows, and how many keys the table and the raw rows have.
type uniquesCount struct {
	stored, sketch, exact, keys, rawKeys uint64
}

func readUniques(t *testing.T, conn driver.Conn) map[string]uniquesCount {
	t.Helper()
	ctx := context.Background()
	out := map[string]uniquesCount{}
	for _, g := range uniquesGrains {
		var c uniquesCount
		for _, q := range []struct {
			sql string
			dst *uint64
		}{
			{`SELECT sum(u), count() FROM (SELECT ` + chstore.VisitorsMerge + ` AS u FROM ` + g.table + ` GROUP BY ` + g.keys + `)`, &c.stored},
			{`SELECT sum(u) FROM (SELECT uniqCombined(15)(visitor) AS u FROM ` + click.RawSource + ` WHERE class = 'human' GROUP BY ` + g.rawKeys + `)`, &c.sketch},
			{`SELECT sum(u), count() FROM (SELECT uniqExact(visitor) AS u FROM ` + click.RawSource + ` WHERE class = 'human' GROUP BY ` + g.rawKeys + `)`, &c.exact},
		} {
			dst := []any{q.dst}
			switch q.dst {
			case &c.stored:
				dst = append(dst, &c.keys)
			case &c.exact:
				dst = append(dst, &c.rawKeys)
			}
			if err := conn.QueryRow(ctx, q.sql).Scan(dst...); err != nil {
				t.Fatalf("%s: %v", q.sql, err)
			}
		}
		out[g.table] = c
	}
	return out
}

func insertVisits(t *testing.T, conn driver.Conn, table string, rows []click.Row) {
	t.Helper()
	var b click.Block
	if err := chstore.InsertRowsInto(context.Background(), conn, table, &b, rows, chstore.Chunking{}); err != nil {
		t.Fatalf("insert into %s: %v", table, err)
	}
}

// visits are n clicks from id on, of links and QR codes, every class,
// spread over 50 hours with visitors that repeat.
func visits(from uint64, n int) []click.Row {
	base := time.Date(2026, 3, 10, 8, 0, 0, 0, time.UTC)
	rows := make([]click.Row, 0, n)
	for i := from; i < from+uint64(n); i++ {
		rows = append(rows, click.Row{ClickID: i, UnixNano: base.Add(time.Duration(i%50) * 61 * time.Minute).UnixNano(),
			Kind: click.Kind(1 + i%2), Class: click.Class(i % 5 / 4), Visitor: i % 37,
			OwnerID: 1 + i%3, LinkID: 10 + i%4, QRID: 10 + i%4})
	}
	return rows
}

// TestUniquesBackfilled: visits stored before 0012, in clicks and in
// click_events, are in its three tables afterwards; visits after it are
// added by its views from either raw table; running 0012 again (a
// migrator that died, or two at once) changes no number. Every grain
// holds, per key, exactly the sketch of that key's raw rows, which at
// these sizes is the exact count.
func TestUniquesBackfilled(t *testing.T) {
	conn := emptyDB(t)
	ctx := context.Background()
	if err := chstore.Migrate(ctx, conn, upTo(t, 12)); err != nil {
		t.Fatal(err)
	}
	insertVisits(t, conn, "clicks", visits(0, 400))
	insertVisits(t, conn, click.Table, visits(1000, 400))
	check := func(when string) {
		t.Helper()
		for table, c := range readUniques(t, conn) {
			if c.exact == 0 || c.stored != c.exact || c.sketch != c.exact || c.keys != c.rawKeys {
				t.Errorf("%s: %s holds %d visitors in %d keys; the raw rows' sketches %d, exactly %d in %d keys",
					when, table, c.stored, c.keys, c.sketch, c.exact, c.rawKeys)
			}
		}
	}
	if err := chstore.Migrate(ctx, conn, embedded(t)); err != nil {
		t.Fatal(err)
	}
	check("after the backfill")

	insertVisits(t, conn, "clicks", visits(2000, 300))
	insertVisits(t, conn, click.Table, visits(3000, 300))
	check("after more visits through both raw tables")

	runAgain(t, conn, "0012_click_uniques.sql")
	check("after 0012 ran again")
}

// TestUniquesGrainsAgree: with more distinct visitors than the sketch
// counts exactly, the all-time number, the days' sketches merged and the
// hours' sketches merged are the same number (the sketch of a union is
// the merge of the parts' sketches), that number is the one sketch of
// all the raw rows, and it is within 2% of the truth.
func TestUniquesGrainsAgree(t *testing.T) {
	conn := emptyDB(t)
	ctx := context.Background()
	if err := chstore.Migrate(ctx, conn, embedded(t)); err != nil {
		t.Fatal(err)
	}
	const distinct = 30000
	base := time.Date(2026, 3, 10, 22, 0, 0, 0, time.UTC)
	rows := make([]click.Row, 0, distinct+distinct/3)
	for i := range uint64(distinct + distinct/3) {
		rows = append(rows, click.Row{ClickID: i + 1, UnixNano: base.Add(time.Duration(i%97) * 37 * time.Minute).UnixNano(),
			Kind: click.KindLink, Class: click.ClassHuman, Visitor: 1e6 + i%distinct, OwnerID: 1, LinkID: 5})
	}
	// Several inserts: the stored states are merged from parts.
	for i := range 4 {
		insertVisits(t, conn, click.Table, rows[i*len(rows)/4:(i+1)*len(rows)/4])
	}
	var all, days, hours, sketch uint64
	for _, q := range []struct {
		sql string
		dst *uint64
	}{
		{`SELECT ` + chstore.VisitorsMerge + ` FROM click_uniques WHERE kind = 'link' AND target_id = 5`, &all},
		{`SELECT ` + chstore.VisitorsMerge + ` FROM click_daily_uniques WHERE kind = 'link' AND target_id = 5`, &days},
		{`SELECT ` + chstore.VisitorsMerge + ` FROM click_hourly_uniques WHERE kind = 'link' AND target_id = 5`, &hours},
		{`SELECT uniqCombined(15)(visitor) FROM ` + click.RawSource + ` WHERE target_id = 5`, &sketch},
	} {
		if err := conn.QueryRow(ctx, q.sql).Scan(q.dst); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	if all != days || all != hours || all != sketch {
		t.Fatalf("all time %d, days merged %d, hours merged %d, one sketch of the raw rows %d: want one number", all, days, hours, sketch)
	}
	if off := float64(all)/distinct - 1; off > 0.02 || off < -0.02 {
		t.Fatalf("%d distinct visitors counted as %d (%.2f%% off)", distinct, all, 100*off)
	}
	s, err := chstore.ReadSummary(ctx, conn, click.KindLink, 5)
	if err != nil || s.UniqueClicks != all || s.Clicks != uint64(len(rows)) {
		t.Fatalf("summary %+v, %v: want %d clicks, %d unique", s, err, len(rows), all)
	}
}

// TestUniquesRefuseLostRaw: where raw months were dropped for retention,
// 0012 (which rebuilds unique clicks from the raw rows) stops with an
// error that says what would be lost and how to accept it, applying
// nothing; with the operator's acceptance it runs, and the sketches hold
// the visitors of the months kept.
func TestUniquesRefuseLostRaw(t *testing.T) {
	conn := emptyDB(t)
	ctx := context.Background()
	if err := chstore.Migrate(ctx, conn, upTo(t, 12)); err != nil {
		t.Fatal(err)
	}
	march, april := visits(0, 300), visits(1000, 300)
	for i := range april {
		april[i].UnixNano += int64(31 * 24 * time.Hour)
	}
	insertVisits(t, conn, click.Table, append(march, april...))
	if err := conn.Exec(ctx, "ALTER TABLE "+click.Table+" DROP PARTITION 202603"); err != nil {
		t.Fatal(err)
	}
	err := chstore.Migrate(ctx, conn, embedded(t))
	if err == nil || !strings.Contains(err.Error(), "--accept-lost-unique-clicks") || !strings.Contains(err.Error(), "have no raw row") {
		t.Fatalf("0012 over dropped raw months: %v", err)
	}
	var n uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'click_uniques'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("refused 0012 created click_uniques (%d, %v)", n, err)
	}
	if err := chstore.MigrateClusterWith(ctx, conn, embedded(t), chstore.Cluster{}, chstore.MigrateOptions{AcceptLostUniques: true}); err != nil {
		t.Fatal(err)
	}
	for table, c := range readUniques(t, conn) {
		if c.exact == 0 || c.stored != c.exact || c.keys != c.rawKeys {
			t.Errorf("%s holds %d visitors in %d keys; the raw rows kept, %d in %d keys", table, c.stored, c.keys, c.exact, c.rawKeys)
		}
	}
}

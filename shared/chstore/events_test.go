package chstore_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// aggregateReads finalise every aggregate table the views of clicks (0002–
// 0010, 0012) and of click_events (0011, 0012) fill, one line per key.
// The uniq states of click_totals, click_hourly, click_visitors and
// click_hourly_visitors are left out: nothing reads them, 0011 leaves the
// first two empty and 0012 stops filling the other two. The product's reads of date ranges, which read
// click_dims_days for click_events and the raw rows for clicks, are
// compared in TestClickEventsCountAsClicks itself.
var aggregateReads = map[string]string{
	"click_totals": `SELECT concat(toString(kind), ' ', toString(target_id), ' ', toString(countIfMerge(humans)), ' ',
		toString(countIfMerge(bots)), ' ', toString(countIfMerge(previews)), ' ', toString(countIfMerge(prefetches))) AS l
		FROM click_totals GROUP BY kind, target_id ORDER BY l`,
	"click_hourly": `SELECT concat(toString(kind), ' ', toString(target_id), ' ', toString(hour), ' ', toString(countIfMerge(humans)), ' ',
		toString(countIfMerge(bots)), ' ', toString(countIfMerge(previews)), ' ', toString(countIfMerge(prefetches))) AS l
		FROM click_hourly GROUP BY kind, target_id, hour ORDER BY l`,
	// clicks' dimensions are all-time (0004), click_events' per day (0011,
	// 0015): their sum over days, devices aside, is what the two must
	// agree on.
	"dimensions": `SELECT concat(toString(kind), ' ', toString(target_id), ' ', dim, ' ', value, ' ', toString(sum(hits))) AS l
		FROM (SELECT kind, target_id, dim, value, hits FROM click_dims_total
			UNION ALL SELECT kind, target_id, dim, value, hits FROM (` + breakdownExpanded + `) WHERE dim != 'device')
		GROUP BY kind, target_id, dim, value ORDER BY l`,
	"click_owner_totals": `SELECT concat(toString(kind), ' ', toString(owner_id), ' ', toString(target_id), ' ', toString(sum(humans))) AS l
		FROM click_owner_totals GROUP BY kind, owner_id, target_id ORDER BY l`,
	"click_uniques": `SELECT concat(toString(kind), ' ', toString(target_id), ' ', toString(` + chstore.VisitorsMerge + `)) AS l
		FROM click_uniques GROUP BY kind, target_id ORDER BY l`,
	"click_daily_uniques": `SELECT concat(toString(kind), ' ', toString(target_id), ' ', toString(day), ' ', toString(` + chstore.VisitorsMerge + `)) AS l
		FROM click_daily_uniques GROUP BY kind, target_id, day ORDER BY l`,
	"click_hourly_uniques": `SELECT concat(toString(kind), ' ', toString(target_id), ' ', toString(hour), ' ', toString(` + chstore.VisitorsMerge + `)) AS l
		FROM click_hourly_uniques GROUP BY kind, target_id, hour ORDER BY l`,
	"click_owner_daily": `SELECT concat(toString(kind), ' ', toString(owner_id), ' ', toString(day), ' ', toString(countMerge(humans)), ' ',
		toString(uniqHLL12Merge(visitors))) AS l
		FROM click_owner_daily GROUP BY kind, owner_id, day ORDER BY l`,
}

// The truth the aggregates must hold, from the raw rows: as many keys as
// these count.
var aggregateKeys = map[string]string{
	"click_totals":         `SELECT count() FROM (SELECT DISTINCT kind, target_id FROM ` + click.RawSource + `)`,
	"click_hourly":         `SELECT count() FROM (SELECT DISTINCT kind, target_id, toStartOfHour(ts) FROM ` + click.RawSource + `)`,
	"click_uniques":        `SELECT count() FROM (SELECT DISTINCT kind, target_id FROM ` + click.RawSource + ` WHERE class = 'human')`,
	"click_daily_uniques":  `SELECT count() FROM (SELECT DISTINCT kind, target_id, toDate(ts) FROM ` + click.RawSource + ` WHERE class = 'human')`,
	"click_hourly_uniques": `SELECT count() FROM (SELECT DISTINCT kind, target_id, toStartOfHour(ts) FROM ` + click.RawSource + ` WHERE class = 'human')`,
	"click_owner_totals":   `SELECT count() FROM (SELECT DISTINCT kind, owner_id, target_id FROM ` + click.RawSource + ` WHERE class = 'human')`,
	"click_owner_daily":    `SELECT count() FROM (SELECT DISTINCT kind, owner_id, toDate(ts) FROM ` + click.RawSource + ` WHERE class = 'human')`,
}

func readAggregates(t *testing.T, conn driver.Conn) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, q := range aggregateReads {
		rows, err := conn.Query(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		for rows.Next() {
			var l string
			if err := rows.Scan(&l); err != nil {
				t.Fatalf("%s: %v", table, err)
			}
			out[table] = append(out[table], l)
		}
		if err := rows.Close(); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
	}
	return out
}

// eventRows is a varied population: links and QR codes of three owners,
// every class, repeat visitors, five dimensions, over 30 hours across a
// month boundary (two partitions).
func eventRows(n int) []click.Row {
	rng := rand.New(rand.NewPCG(11, 17))
	start := time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC).UnixNano()
	countries := []string{"DE", "US", "FR", ""}
	browsers := []string{"Chrome", "Firefox", "Safari"}
	refs := []string{"", "google.com", "t.co", "news.example"}
	rows := make([]click.Row, n)
	for i := range rows {
		r := click.Row{
			ClickID:     uint64(i + 1),
			UnixNano:    start + rng.Int64N(int64(30*time.Hour)),
			Kind:        click.KindLink,
			LinkID:      uint64(1 + rng.IntN(40)),
			Class:       click.Class(rng.IntN(4)),
			Visitor:     uint64(1 + rng.IntN(300)),
			Country:     countries[rng.IntN(len(countries))],
			Browser:     browsers[rng.IntN(len(browsers))],
			OS:          "Windows",
			Device:      "desktop",
			RefHost:     refs[rng.IntN(len(refs))],
			RefCategory: click.RefCategory(rng.IntN(5)),
			Language:    "de",
		}
		r.OwnerID = 1 + r.LinkID%3
		if rng.IntN(10) == 0 {
			r.Kind, r.QRID = click.KindQR, uint64(1+rng.IntN(5))
		}
		rows[i] = r
	}
	return rows
}

// TestClickEventsCountAsClicks: the same clicks give the same numbers in
// every aggregate table whether they went to clicks (the views of 0002–
// 0010), to click_events (0011's chained views) or, as during a rollout,
// some to each. It fails if a chained view is missing, runs twice, or
// computes a column differently.
func TestClickEventsCountAsClicks(t *testing.T) {
	ctx := context.Background()
	rows := eventRows(6000)
	insert := func(conn driver.Conn, tables ...string) {
		t.Helper()
		var blk click.Block
		// Six INSERTs, so that later ones add to the states of earlier ones.
		const parts = 6
		for i := range parts {
			part := rows[i*len(rows)/parts : (i+1)*len(rows)/parts]
			table := tables[i%len(tables)]
			if err := chstore.InsertRowsInto(ctx, conn, table, &blk, part, chstore.DefaultChunking()); err != nil {
				t.Fatalf("insert into %s: %v", table, err)
			}
		}
	}
	old, _ := chtest.New(t)
	insert(old, "clicks")
	events, _ := chtest.New(t)
	insert(events, click.Table)
	mixed, _ := chtest.New(t)
	insert(mixed, "clicks", click.Table)

	want := readAggregates(t, old)
	for table, q := range aggregateKeys {
		var keys uint64
		if err := old.QueryRow(ctx, q).Scan(&keys); err != nil {
			t.Fatalf("%s keys: %v", table, err)
		}
		if keys == 0 || uint64(len(want[table])) != keys {
			t.Fatalf("%s through clicks' views: %d keys, the raw clicks have %d", table, len(want[table]), keys)
		}
	}
	for name, conn := range map[string]driver.Conn{"click_events": events, "clicks and click_events": mixed} {
		got := readAggregates(t, conn)
		for table, w := range want {
			if !slices.Equal(got[table], w) {
				t.Errorf("%s through %s: %d keys differ from clicks' views (%d keys); first lines\ngot  %q\nwant %q",
					table, name, countDiff(got[table], w), len(w), got[table][:min(5, len(got[table]))], w[:min(5, len(w))])
			}
		}
		var raw uint64
		if err := conn.QueryRow(ctx, "SELECT count() FROM "+click.RawSource).Scan(&raw); err != nil || raw != uint64(len(rows)) {
			t.Errorf("%s: %d raw clicks (%v), want %d", name, raw, err, len(rows))
		}
		compareReads(t, name, old, conn)
	}
}

// compareReads checks that the product's reads of one target give the same
// answers on both databases: all time, and date ranges of one day, of
// both days and of a day without clicks.
func compareReads(t *testing.T, name string, want, got driver.Conn) {
	t.Helper()
	ctx := context.Background()
	day := time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	ranges := [][2]time.Time{{day, day.AddDate(0, 0, 1)}, {day.AddDate(0, 0, 1), day.AddDate(0, 0, 2)},
		{day, day.AddDate(0, 0, 2)}, {day.AddDate(0, 0, 5), day.AddDate(0, 0, 6)}}
	for _, target := range []struct {
		kind click.Kind
		id   int64
	}{{click.KindLink, 1}, {click.KindLink, 17}, {click.KindQR, 3}} {
		check := func(what string, read func(driver.Conn) (any, error)) {
			w, err := read(want)
			if err != nil {
				t.Fatalf("%s %v %d through clicks: %v", what, target.kind, target.id, err)
			}
			g, err := read(got)
			if err != nil {
				t.Fatalf("%s %v %d through %s: %v", what, target.kind, target.id, name, err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s of %v %d through %s:\ngot  %+v\nwant %+v", what, target.kind, target.id, name, g, w)
			}
		}
		check("summary", func(c driver.Conn) (any, error) { return chstore.ReadSummary(ctx, c, target.kind, target.id) })
		// Equal answers must not be empty ones.
		if rb, err := chstore.ReadRangeBreakdown(ctx, got, target.kind, target.id, day, day.AddDate(0, 0, 2)); err != nil || len(rb.CountryCodes) < 2 || len(rb.Devices) == 0 {
			t.Fatalf("breakdown of %v %d over both days through %s: %+v, %v; the population should give several countries and devices", target.kind, target.id, name, rb, err)
		}
		for _, r := range ranges {
			at := r[0].Format("01-02") + ".." + r[1].Format("01-02")
			check("breakdown "+at, func(c driver.Conn) (any, error) {
				return chstore.ReadRangeBreakdown(ctx, c, target.kind, target.id, r[0], r[1])
			})
		}
	}
}

func countDiff(a, b []string) int {
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	n := 0
	for _, v := range seen {
		if v != 0 {
			n++
		}
	}
	return n
}

// TestRangeReadsRefuseHours: the daily tables answer whole UTC days only.
func TestRangeReadsRefuseHours(t *testing.T) {
	conn, _ := chtest.New(t)
	ctx := context.Background()
	day := time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	if _, err := chstore.ReadRangeBreakdown(ctx, conn, click.KindLink, 1, day.Add(time.Hour), day.AddDate(0, 0, 1)); err == nil {
		t.Error("breakdown from 01:00 answered")
	}
	if _, err := chstore.ReadRangeBreakdown(ctx, conn, click.KindLink, 1, day, day.Add(90*time.Minute)); err == nil {
		t.Error("breakdown to 01:30 answered")
	}
	if _, err := chstore.ReadRangeBreakdown(ctx, conn, click.KindLink, 1, day.In(time.FixedZone("x", 3600)), day.AddDate(0, 0, 1)); err != nil {
		t.Errorf("breakdown from UTC midnight written in another zone: %v", err)
	}
}

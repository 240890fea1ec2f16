package chstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// TestBreakdownDays: 0015 copies the daily breakdown into
// click_breakdown_days under a hold and feeds it with three rows per click.
// After a run that died half-way and the next one that went through,
// clicks counted before it, during it (an inserter running all the while)
// and after it count once in every dimension; new clicks leave
// click_dims_days as it was and make rows of the three new kinds only;
// the range and all-time reads give the raw rows' numbers for a link
// counted both ways.
func TestBreakdownDays(t *testing.T) {
	conn, now := clickedBefore(t, 15)
	ctx := context.Background()
	// A run that died half-way: held, the old view dropped, the new table
	// made and filled, no new view yet. The next run goes through under
	// the same hold.
	diedHalfWay(t, conn, now, "0015_click_breakdown_days.sql", 15, 1, click.Table)
	migrateInserting(t, conn, now)
	checkDims(t, conn, "after 0015 with inserts running")
	checkCounters(t, conn, "after 0015 with inserts running")

	// A link of its own, clicked only after 0015.
	frozen := textRows(t, conn, "SELECT kind, target_id, day, dim, value, hits FROM click_dims_days")
	fresh := varied(chtest.Clicks(now, 400), 1<<40)
	for i := range fresh {
		fresh[i].Kind, fresh[i].LinkID, fresh[i].QRID = click.KindLink, 9001, 0
	}
	if err := insertClicks(ctx, conn, fresh); err != nil {
		t.Fatal(err)
	}
	checkDims(t, conn, "after more clicks")
	if got := textRows(t, conn, "SELECT kind, target_id, day, dim, value, hits FROM click_dims_days"); !slices.Equal(got, frozen) {
		t.Fatalf("click_dims_days changed after 0015: %d rows, %d before", len(got), len(frozen))
	}
	kinds := textRows(t, conn, "SELECT DISTINCT toString(grp) FROM click_breakdown_days WHERE target_id = 9001")
	if !slices.Equal(kinds, []string{"client\t", "country\t", "referrer_category\t"}) {
		t.Fatalf("a new click's breakdown rows are of kinds %q, want client, country and referrer_category", kinds)
	}

	// Link 7 has clicks from before 0015 (copied as rows of one dimension
	// each) and from after (rows of the three new kinds): the reads add
	// both.
	if err := insertClicks(ctx, conn, varied(chtest.Clicks(now, 600), 2<<40)); err != nil {
		t.Fatal(err)
	}
	from := now.Truncate(24*time.Hour).AddDate(0, 0, -60)
	end := now.Truncate(24*time.Hour).AddDate(0, 0, 1)
	got, err := chstore.ReadRangeBreakdown(ctx, conn, click.KindLink, 7, from, end)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := chstore.ReadSummary(ctx, conn, click.KindLink, 7)
	if err != nil {
		t.Fatal(err)
	}
	want := rawBreakdown(t, conn, 7)
	for _, c := range []struct {
		name string
		got  []chstore.Count
		raw  map[string]uint64
	}{
		{"range countries", got.CountryCodes, want["country"]},
		{"range referrers", got.Breakdown.Referrers, want["referrer"]},
		{"range browsers", got.Breakdown.Browsers, want["browser"]},
		{"range systems", got.Breakdown.OS, want["os"]},
		{"range devices", got.Devices, want["device"]},
		{"all-time referrers", sum.Breakdown.Referrers, want["referrer"]},
		{"all-time browsers", sum.Breakdown.Browsers, want["browser"]},
		{"all-time systems", sum.Breakdown.OS, want["os"]},
	} {
		if len(c.got) < 2 || len(c.got) != len(c.raw) {
			t.Fatalf("%s: %v, raw rows %v", c.name, c.got, c.raw)
		}
		for _, g := range c.got {
			if c.raw[g.Name] != g.N {
				t.Errorf("%s: %s = %d, raw rows %d", c.name, g.Name, g.N, c.raw[g.Name])
			}
		}
	}
	for _, b := range []map[string]uint64{got.Breakdown.Categories, sum.Breakdown.Categories} {
		if len(b) < 2 || len(b) != len(want["category"]) {
			t.Fatalf("categories %v, raw rows %v", b, want["category"])
		}
		for name, n := range b {
			if want["category"][name] != n {
				t.Errorf("category %s = %d, raw rows %d", name, n, want["category"][name])
			}
		}
	}
}

// varied gives rows click ids of their own (plus offset) and several
// systems and device classes, which chtest.Clicks keeps to one each.
func varied(rows []click.Row, offset uint64) []click.Row {
	systems := []string{"Linux", "iOS", "Android", "Windows"}
	devices := []string{"desktop", "mobile", "tablet"}
	for i := range rows {
		rows[i].ClickID += offset
		rows[i].OS, rows[i].Device = systems[i%len(systems)], devices[i%len(devices)]
	}
	return rows
}

// rawBreakdown counts link id's human clicks in click_events by dimension
// and shown name (the reads show "direct" for no referrer, "unknown" for
// another empty value but a country's).
func rawBreakdown(t *testing.T, conn driver.Conn, id uint64) map[string]map[string]uint64 {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT d.1 AS dim,
			multiIf(d.1 = 'referrer' AND d.2 = '', 'direct', d.2 = '' AND d.1 != 'country', 'unknown', d.2) AS name, count()
		FROM click_events ARRAY JOIN [('country', country), ('referrer', referrer_host), ('browser', browser), ('os', os),
			('category', toString(referrer_category)), ('device', device)] AS d
		WHERE kind = 'link' AND target_id = ? AND class = 'human' GROUP BY dim, name`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]map[string]uint64{}
	for rows.Next() {
		var dim, name string
		var n uint64
		if err := rows.Scan(&dim, &name, &n); err != nil {
			t.Fatal(err)
		}
		if out[dim] == nil {
			out[dim] = map[string]uint64{}
		}
		out[dim][name] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

package chstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// TestDimsSplit: 0015 counts the referrers and the client dimensions of
// new clicks in tables of their own, swapping the views under a hold.
// Clicks counted before it, during it (an inserter running all the while)
// and after it count once in every dimension; new clicks leave only their
// country in click_dims_days; the range and all-time reads give the raw
// rows' numbers for a target counted both ways.
func TestDimsSplit(t *testing.T) {
	conn, now := clickedBefore(t, 15)
	ctx := context.Background()
	migrateInserting(t, conn, now)
	checkDims(t, conn, "after 0015 with inserts running")
	checkCounters(t, conn, "after 0015 with inserts running")

	// A target of its own, clicked only after 0015.
	fresh := chtest.Clicks(now, 400)
	for i := range fresh {
		fresh[i].ClickID += 1 << 40
		fresh[i].Kind, fresh[i].LinkID, fresh[i].QRID = click.KindLink, 9001, 0
	}
	if err := insertClicks(ctx, conn, fresh); err != nil {
		t.Fatal(err)
	}
	checkDims(t, conn, "after more clicks")
	var onlyCountries, other uint64
	if err := conn.QueryRow(ctx, `SELECT countIf(dim = 'country'), countIf(dim != 'country') FROM click_dims_days
		WHERE target_id = 9001`).Scan(&onlyCountries, &other); err != nil {
		t.Fatal(err)
	}
	if onlyCountries == 0 || other != 0 {
		t.Fatalf("a new click's breakdown in click_dims_days: %d country rows and %d others, want countries only", onlyCountries, other)
	}

	// Link 7 has clicks from before 0015 (every dimension in
	// click_dims_days) and from after (three tables): the reads add both.
	after := chtest.Clicks(now, 600)
	for i := range after {
		after[i].ClickID += 2 << 40
	}
	if err := insertClicks(ctx, conn, after); err != nil {
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
		{"range browsers", got.Breakdown.Browsers, want["browser"]},
		{"range referrers", got.Breakdown.Referrers, want["referrer"]},
		{"range devices", got.Devices, want["device"]},
		{"all-time browsers", sum.Breakdown.Browsers, want["browser"]},
		{"all-time os", sum.Breakdown.OS, want["os"]},
	} {
		if len(c.got) == 0 || len(c.got) != len(c.raw) {
			t.Fatalf("%s: %v, raw rows %v", c.name, c.got, c.raw)
		}
		for _, g := range c.got {
			if c.raw[g.Name] != g.N {
				t.Errorf("%s: %s = %d, raw rows %d", c.name, g.Name, g.N, c.raw[g.Name])
			}
		}
	}
	for _, b := range []map[string]uint64{got.Breakdown.Categories, sum.Breakdown.Categories} {
		if len(b) == 0 || len(b) != len(want["category"]) {
			t.Fatalf("categories %v, raw rows %v", b, want["category"])
		}
		for name, n := range b {
			if want["category"][name] != n {
				t.Errorf("category %s = %d, raw rows %d", name, n, want["category"][name])
			}
		}
	}
}

// rawBreakdown counts link id's human clicks in click_events by dimension
// and shown name (the reads show "direct" for no referrer, "unknown" for
// another empty value).
func rawBreakdown(t *testing.T, conn driver.Conn, id uint64) map[string]map[string]uint64 {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT d.1 AS dim,
			multiIf(d.1 = 'referrer' AND d.2 = '', 'direct', d.2 = '', 'unknown', d.2) AS name, count()
		FROM click_events ARRAY JOIN [('referrer', referrer_host), ('browser', browser), ('os', os),
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

package chstore_test

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// TestRankingSumsUnmergedParts: a ranking read while click_owner_totals
// still holds one part per insert must rank by the sums over the parts,
// as if merged. The inserts are built so that no single part's order is
// the summed one, and bots (0 humans) add rows that must not count.
func TestRankingSumsUnmergedParts(t *testing.T) {
	conn, _ := chtest.New(t)
	ctx := context.Background()
	if err := conn.Exec(ctx, `SYSTEM STOP MERGES click_owner_totals`); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	want := map[int64]int64{}
	id := uint64(0)
	inserts := [][]struct {
		link   uint64
		humans int
		bots   int
	}{
		{{1, 9, 0}, {2, 1, 0}, {3, 5, 2}, {4, 0, 3}},
		{{2, 7, 0}, {3, 1, 0}, {5, 2, 0}, {4, 0, 1}},
		{{1, 1, 0}, {2, 3, 0}, {5, 8, 0}, {6, 0, 4}},
	}
	for _, ins := range inserts {
		var rows []click.Row
		for _, l := range ins {
			for i := range l.humans + l.bots {
				id++
				class := click.ClassHuman
				if i >= l.humans {
					class = click.ClassBot
				}
				rows = append(rows, click.Row{ClickID: id, UnixNano: now.UnixNano(), Kind: click.KindLink, Class: class,
					LinkID: l.link, OwnerID: 7, Visitor: id, Browser: "Other", OS: "Other", Device: "desktop"})
			}
			if l.humans > 0 {
				want[int64(l.link)] += int64(l.humans)
			}
		}
		var blk click.Block
		if err := chstore.InsertRows(ctx, conn, &blk, rows, chstore.DefaultChunking()); err != nil {
			t.Fatal(err)
		}
	}
	var parts uint64
	if err := conn.QueryRow(ctx, `SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = 'click_owner_totals' AND active`).Scan(&parts); err != nil || parts < 3 {
		t.Fatalf("%d parts (%v): the test needs one per insert", parts, err)
	}
	// Links 2 (11) and 5 (10) pass link 1 (10) only when summed; ties go
	// to the higher id. Links 4 and 6 have bots only.
	type entry struct{ id, n int64 }
	var exp []entry
	for id, n := range want {
		exp = append(exp, entry{id, n})
	}
	slices.SortFunc(exp, func(a, b entry) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(b.id, a.id)) })
	var sum uint64
	for _, e := range exp {
		sum += uint64(e.n)
	}
	for _, limit := range []int{0, 2} {
		got, total, err := chstore.ReadRanking(ctx, conn, click.KindLink, 7, limit)
		if err != nil {
			t.Fatal(err)
		}
		// The total counts every target, not the limit's: the sum a cache
		// of rankings compares with ReadOwnerHumans.
		humans, err := chstore.ReadOwnerHumans(ctx, conn, click.KindLink, 7)
		if err != nil {
			t.Fatal(err)
		}
		if total != sum || humans != sum {
			t.Errorf("limit %d: ranking's total %d, ReadOwnerHumans %d, want %d", limit, total, humans, sum)
		}
		n := len(exp)
		if limit > 0 {
			n = limit
		}
		var gotE []entry
		for i := range got.IDs {
			gotE = append(gotE, entry{got.IDs[i], got.Clicks[i]})
		}
		if !slices.Equal(gotE, exp[:n]) {
			t.Errorf("limit %d: ranking %v, want %v", limit, gotE, exp[:n])
		}
	}
}

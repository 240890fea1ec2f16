package stats_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"kurz/admin/internal/stats"
	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// TestTotals reads many targets' clicks and unique visitors in one query;
// each equals the Summary's, and targets nobody visited are zero.
func TestTotals(t *testing.T) {
	conn, _ := chtest.New(t)
	insert(t, conn, fixture())
	svc := stats.New(conn)
	ctx := context.Background()
	// 7 is a QR code's id: its scans are not a link's clicks.
	ids := []int64{42, 43, 99, 7}
	tests := []struct {
		uniques bool
		want    map[int64]stats.Totals
	}{
		{true, map[int64]stats.Totals{42: {Clicks: 6, UniqueClicks: 4}, 43: {Clicks: 1, UniqueClicks: 1}, 99: {}, 7: {}}},
		{false, map[int64]stats.Totals{42: {Clicks: 6}, 43: {Clicks: 1}, 99: {}, 7: {}}},
	}
	for _, tt := range tests {
		got, err := svc.Totals(ctx, click.KindLink, ids, tt.uniques)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("uniques=%v: Totals = %v, want %v", tt.uniques, got, tt.want)
		}
	}
	for _, id := range []int64{42, 43} {
		sum, err := svc.Summary(ctx, click.KindLink, id)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := svc.Totals(ctx, click.KindLink, []int64{id}, true)
		if sum.Clicks != got[id].Clicks || sum.UniqueClicks != got[id].UniqueClicks {
			t.Errorf("link %d: Summary %d/%d, Totals %v", id, sum.Clicks, sum.UniqueClicks, got[id])
		}
	}
	qr, err := svc.Totals(ctx, click.KindQR, []int64{7}, true)
	if err != nil || qr[7] != (stats.Totals{Clicks: 2, UniqueClicks: 2}) {
		t.Errorf("QR 7: %v, %v; want 2 scans by 2 visitors", qr, err)
	}
	if empty, err := svc.Totals(ctx, click.KindLink, nil, true); err != nil || len(empty) != 0 {
		t.Errorf("no ids: %v, %v", empty, err)
	}
}

// TestRanking orders an owner's clicked links by human clicks (ties: the
// newer id first) and leaves out other owners' links, bots and QR scans.
func TestRanking(t *testing.T) {
	conn, _ := chtest.New(t)
	rows := fixture() // owner 1: link 42 (6 humans), 43 (1), QR 7 (2)
	for i, id := range []uint64{44, 44, 45} {
		r := visit(uint64(100+i), id, t0, 500, "DE", "Chrome", "Windows", "", click.RefDirect)
		r.OwnerID = 2
		rows = append(rows, r)
	}
	tie := visit(200, 41, t0, 600, "DE", "Chrome", "Windows", "", click.RefDirect)
	rows = append(rows, tie)
	insert(t, conn, rows)
	svc := stats.New(conn)
	ctx := context.Background()
	tests := []struct {
		kind  click.Kind
		owner int64
		limit int
		want  stats.Ranked
	}{
		{click.KindLink, 1, 0, stats.Ranked{IDs: []int64{42, 43, 41}, Clicks: []int64{6, 1, 1}}},
		{click.KindLink, 1, 2, stats.Ranked{IDs: []int64{42, 43}, Clicks: []int64{6, 1}}},
		{click.KindLink, 1, 3, stats.Ranked{IDs: []int64{42, 43, 41}, Clicks: []int64{6, 1, 1}}},
		{click.KindLink, 2, 0, stats.Ranked{IDs: []int64{44, 45}, Clicks: []int64{2, 1}}},
		{click.KindQR, 1, 0, stats.Ranked{IDs: []int64{7}, Clicks: []int64{2}}},
		{click.KindLink, 3, 0, stats.Ranked{}},
	}
	for _, tt := range tests {
		got, err := svc.Ranking(ctx, tt.kind, tt.owner, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("kind %d owner %d limit %d: %v, want %v", tt.kind, tt.owner, tt.limit, got, tt.want)
		}
	}
}

// TestRankingReadAgainOnClicks: a ranking read twice with no click in
// between comes from the cache; a click of the owner's makes the next read
// go to ClickHouse and see it, also when it reorders the ranking. This is
// the rankCache's way, which a cluster uses (TestRankingByParts is one
// server's).
func TestRankingReadAgainOnClicks(t *testing.T) {
	conn, _ := chtest.New(t)
	insert(t, conn, fixture()) // owner 1: link 42 (6 humans), 43 (1)
	svc := stats.New(conn)
	svc.KeepRankingsByParts(false)
	ctx := context.Background()
	read := func(limit int) stats.Ranked {
		t.Helper()
		r, err := svc.Ranking(ctx, click.KindLink, 1, limit)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := read(10)
	hits0, _ := svc.RankCacheCounts()
	if again := read(10); !reflect.DeepEqual(again, first) {
		t.Fatalf("unchanged clicks, another ranking: %v then %v", first, again)
	}
	if hits, _ := svc.RankCacheCounts(); hits != hits0+1 {
		t.Fatalf("a ranking with no click since was read again (hits %d -> %d)", hits0, hits)
	}
	var more []click.Row
	for i := range 6 { // link 43 overtakes 42: 7 against 6
		more = append(more, visit(uint64(900+i), 43, t0, uint64(900+i), "DE", "Chrome", "Windows", "", click.RefDirect))
	}
	insert(t, conn, more)
	want := stats.Ranked{IDs: []int64{43, 42}, Clicks: []int64{7, 6}}
	if got := read(10); !reflect.DeepEqual(got, want) {
		t.Fatalf("after 6 more clicks on 43: %v, want %v", got, want)
	}
	// The total had moved: the next read goes to the ranking at once, and
	// sees a click that landed since.
	insert(t, conn, []click.Row{visit(920, 42, t0, 920, "DE", "Chrome", "Windows", "", click.RefDirect)})
	want = stats.Ranked{IDs: []int64{43, 42}, Clicks: []int64{7, 7}}
	direct0 := svc.RankDirectReads()
	if got := read(10); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a click on 42, read at once: %v, want %v", got, want)
	}
	if got := read(10); !reflect.DeepEqual(got, want) { // no click since: clears the mark
		t.Fatalf("read at once again: %v, want %v", got, want)
	}
	if direct := svc.RankDirectReads(); direct != direct0+2 {
		t.Errorf("%d rankings read at once, want 2", direct-direct0)
	}
	hits2, _ := svc.RankCacheCounts()
	if got := read(10); !reflect.DeepEqual(got, want) || svc.RankDirectReads() != direct0+2 {
		t.Fatalf("third read with no click: %v (direct reads %d)", got, svc.RankDirectReads()-direct0)
	}
	if hits, _ := svc.RankCacheCounts(); hits != hits2+1 {
		t.Errorf("an owner whose clicks stopped was not served from the cache")
	}
	bot := visit(950, 42, t0, 950, "DE", "Chrome", "Windows", "", click.RefDirect)
	bot.Class = click.ClassBot
	insert(t, conn, []click.Row{bot}) // no human click: same total, same ranking
	hits1, _ := svc.RankCacheCounts()
	if got := read(10); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a bot's visit: %v, want %v", got, want)
	}
	if hits, _ := svc.RankCacheCounts(); hits != hits1+1 {
		t.Errorf("a bot's visit made the ranking be read again")
	}
}

// TestTotalsKeepUniques: Service.Totals equals one plain read
// (chstore.ReadTotals) every time, and merges a target's sketches again
// only when its rows changed: a new visitor of its own, or merged parts.
func TestTotalsKeepUniques(t *testing.T) {
	conn, _ := chtest.New(t)
	merges := chtest.StopMerges(t, conn, "click_uniques")
	insert(t, conn, fixture()) // link 42: 6 clicks by 4 visitors, 43: 1
	svc := stats.New(conn)
	ctx := context.Background()
	ids := []int64{42, 43, 99}
	read := func(when string, wantMisses int) {
		t.Helper()
		_, missesBefore := svc.UniqueCacheCounts()
		got, err := svc.Totals(ctx, click.KindLink, ids, true)
		if err != nil {
			t.Fatal(err)
		}
		want, err := chstore.ReadTotals(ctx, conn, click.KindLink, ids, true)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Totals = %v, a plain read %v", when, got, want)
		}
		if _, misses := svc.UniqueCacheCounts(); misses-missesBefore != wantMisses {
			t.Errorf("%s: %d sketch merges, want %d", when, misses-missesBefore, wantMisses)
		}
	}
	read("first", 2) // 99 has no visitor: no sketch to merge
	read("again", 0)

	newcomer := visit(300, 42, t0.Add(72*time.Hour), 777, "DE", "Chrome", "Linux", "", click.RefDirect)
	again := visit(301, 43, t0.Add(72*time.Hour), 100, "FR", "Edge", "Windows", "", click.RefDirect)
	again.Class = click.ClassBot // a bot adds no visitor and no row of 43's
	insert(t, conn, []click.Row{newcomer, again})
	read("a new visitor of 42", 1)
	if got, _ := svc.Totals(ctx, click.KindLink, ids, true); got[42].UniqueClicks != 5 {
		t.Errorf("42 after a new visitor: %+v, want 5 unique clicks", got[42])
	}

	merges.Optimize("click_uniques")
	read("merged parts", 2)
}

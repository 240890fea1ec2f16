package stats_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"kurz/admin/internal/stats"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// TestRangeSeriesAndTotals: link 42 of the fixture over 2026-03-03..06 by
// day, hour and week. The range's unique clicks are its distinct
// visitors (visitor 100 on the 4th only, 400 twice on the 6th), not the
// sum of the buckets'; bots, previews, prefetches and other links do not
// count; empty buckets are present with zeros; a range without clicks
// answers zeros.
func TestRangeSeriesAndTotals(t *testing.T) {
	conn, _ := chtest.New(t)
	rows := fixture()
	// A visitor of the 4th again on the 5th: two in the buckets, one in
	// the range.
	rows = append(rows, visit(20, 42, t0.Add(25*time.Hour), 100, "DE", "Chrome", "Windows", "", click.RefDirect))
	insert(t, conn, rows)
	svc := stats.New(conn)
	ctx := context.Background()
	from, to := t0.AddDate(0, 0, -1), t0.AddDate(0, 0, 2)

	r, err := svc.Range(ctx, click.KindLink, 42, from, to, stats.Day)
	if err != nil {
		t.Fatal(err)
	}
	type bucket struct {
		day          string
		clicks, uniq uint64
	}
	want := []bucket{{"2026-03-03", 0, 0}, {"2026-03-04", 3, 2}, {"2026-03-05", 2, 2}, {"2026-03-06", 2, 1}}
	if len(r.Series) != len(want) {
		t.Fatalf("series %+v, want %d days", r.Series, len(want))
	}
	for i, w := range want {
		b := r.Series[i]
		if b.Start.Format(time.DateOnly) != w.day || b.Clicks != w.clicks || b.UniqueClicks != w.uniq {
			t.Errorf("day %d: %s %d clicks %d unique, want %+v", i, b.Start.Format(time.DateOnly), b.Clicks, b.UniqueClicks, w)
		}
	}
	// Visitors 100, 200, 300, 400: four, where the days sum to five.
	if r.Clicks != 7 || r.UniqueClicks != 4 {
		t.Errorf("range: %d clicks %d unique, want 7 and 4", r.Clicks, r.UniqueClicks)
	}
	// The fixture's bot, preview and prefetch on the 4th, apart from people.
	if r.Bots != 1 || r.Previews != 1 || r.Prefetches != 1 {
		t.Errorf("range: %d bots %d previews %d prefetches, want one each", r.Bots, r.Previews, r.Prefetches)
	}

	h, err := svc.Range(ctx, click.KindLink, 42, t0, t0, stats.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if h.Bots != 1 || h.Previews != 1 || h.Prefetches != 1 {
		t.Errorf("hours of the 4th: %d bots %d previews %d prefetches, want one each", h.Bots, h.Previews, h.Prefetches)
	}
	if len(h.Series) != 24 || h.Series[10].Clicks != 1 || h.Series[11].Clicks != 1 || h.Series[12].Clicks != 1 || h.Clicks != 3 || h.UniqueClicks != 2 {
		t.Errorf("hours of the 4th: %d buckets, 10h-12h %+v, range %d/%d; want 24, one click each, 3/2",
			len(h.Series), h.Series[10:13], h.Clicks, h.UniqueClicks)
	}

	w, err := svc.Range(ctx, click.KindLink, 42, from, to, stats.Week)
	if err != nil {
		t.Fatal(err)
	}
	// 2026-03-02 is a Monday: one week holds the whole range.
	if len(w.Series) != 1 || w.Series[0].Start.Format(time.DateOnly) != "2026-03-02" || w.Series[0].Clicks != 7 || w.Series[0].UniqueClicks != 4 {
		t.Errorf("week: %+v, want one week of 2026-03-02 with 7 clicks, 4 unique", w.Series)
	}

	none, err := svc.Range(ctx, click.KindLink, 42, t0.AddDate(0, 1, 0), t0.AddDate(0, 1, 1), stats.Day)
	if err != nil {
		t.Fatal(err)
	}
	if none.Clicks != 0 || none.UniqueClicks != 0 || len(none.Series) != 2 || none.Series[0].Clicks != 0 || none.Bots+none.Previews+none.Prefetches != 0 {
		t.Errorf("a month later: %+v", none)
	}
}

// TestRangeKeepsUniques: a range's unique clicks are merged again only when
// the parts holding its sketches changed (a visitor in the range, merged
// parts), and every answer equals a service that keeps nothing.
func TestRangeKeepsUniques(t *testing.T) {
	conn, _ := chtest.New(t)
	merges := chtest.StopMerges(t, conn, "click_daily_uniques", "click_hourly_uniques")
	// link 42: visits on t0's day and the two after, and one a week later:
	// two weeks, so that a week's parts are not the range's.
	insert(t, conn, append(fixture(), visit(6999, 42, t0.AddDate(0, 0, 7), 6999, "FR", "Safari", "iOS", "", click.RefDirect)))
	svc := stats.New(conn)
	ctx := context.Background()
	from, to := t0.AddDate(0, 0, -10), t0.AddDate(0, 0, 10)
	read := func(when string, iv stats.Interval, wantMisses int) {
		t.Helper()
		_, m0 := svc.SeriesCacheCounts()
		got, err := svc.Range(ctx, click.KindLink, 42, from, to, iv)
		if err != nil {
			t.Fatal(err)
		}
		want, err := stats.New(conn).Range(ctx, click.KindLink, 42, from, to, iv)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || got.UniqueClicks == 0 {
			t.Errorf("%s, by %s: %+v\nkeeping nothing: %+v", when, iv, got, want)
		}
		if _, m := svc.SeriesCacheCounts(); m-m0 != wantMisses {
			t.Errorf("%s, by %s: %d sketch reads, want %d", when, iv, m-m0, wantMisses)
		}
	}
	for _, iv := range []stats.Interval{stats.Day, stats.Week} {
		read("first", iv, 1)
		read("again", iv, 0)
	}
	insert(t, conn, []click.Row{visit(7000, 42, t0.Add(time.Hour), 7777, "DE", "Chrome", "Linux", "", click.RefDirect)})
	read("a new visitor in the range", stats.Week, 1)
	read("a new visitor in the range", stats.Day, 1)
	insert(t, conn, []click.Row{visit(7001, 43, t0.Add(time.Hour), 7778, "DE", "Chrome", "Linux", "", click.RefDirect)})
	read("another link's visitor", stats.Week, 0)
	merges.Optimize("click_daily_uniques")
	read("merged parts", stats.Week, 1)
	read("merged parts", stats.Day, 1)
	if got, err := svc.Range(ctx, click.KindLink, 999, from, to, stats.Week); err != nil || got.UniqueClicks != 0 || got.Clicks != 0 {
		t.Errorf("a link nobody visited: %+v, %v", got, err)
	}
}

package stats_test

import (
	"context"
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

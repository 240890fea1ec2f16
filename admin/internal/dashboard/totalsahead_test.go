package dashboard

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"kurz/admin/internal/stats"
	"kurz/shared/click"
	"kurz/shared/link"
)

// TestRankedPageReadsAhead: a table page by clicks reads the numbers of
// the links the ranking read last time had at its places beside the new
// ranking, and the others after the page is known (all of them on the
// first page; a link a click moved onto it); either way the rows show the
// numbers of their own links, in the new order, also once a ranked link is
// deleted.
func TestRankedPageReadsAhead(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	a := e.link(ann, map[string]string{"url": "https://example.com/a"})
	b := e.link(ann, map[string]string{"url": "https://example.com/b"})
	c := e.link(ann, map[string]string{"url": "https://example.com/c"})
	insertClicks(t, e, []click.Row{humanClick(a, 1), humanClick(a, 1), humanClick(a, 2), humanClick(b, 3), humanClick(b, 4)})
	cl := e.client()
	cl.signIn("ann")

	steps := []struct {
		name   string
		clicks []click.Row // inserted before the page is read
		order  []int64
		cells  []string
		ahead  bool
	}{
		{"first page, no ranking kept", nil, []int64{a.ID, b.ID, c.ID},
			[]string{"clicks=3", "unique=2", "clicks=2", "unique=2", "clicks=0", "unique=0"}, false},
		// c was not ranked: the ranking kept names a and b only.
		{"an unranked link clicked to the top", []click.Row{humanClick(c, 5), humanClick(c, 6), humanClick(c, 7), humanClick(c, 8)},
			[]int64{c.ID, a.ID, b.ID}, []string{"clicks=4", "unique=4", "clicks=3", "unique=2", "clicks=2", "unique=2"}, true},
		{"b passes a", []click.Row{humanClick(b, 9), humanClick(b, 10)},
			[]int64{c.ID, b.ID, a.ID}, []string{"clicks=4", "unique=4", "clicks=4", "unique=4", "clicks=3", "unique=2"}, true},
		{"no click since", nil,
			[]int64{c.ID, b.ID, a.ID}, []string{"clicks=4", "unique=4", "clicks=4", "unique=4", "clicks=3", "unique=2"}, true},
		// ClickHouse still ranks b; the page skips it.
		{"b deleted", nil, []int64{c.ID, a.ID}, []string{"clicks=4", "unique=4", "clicks=3", "unique=2"}, true},
	}
	for _, st := range steps {
		if len(st.clicks) > 0 {
			insertClicks(t, e, st.clicks)
		}
		if st.name == "b deleted" {
			if err := e.store.DeleteLink(context.Background(), ann.ID, b.ID); err != nil {
				t.Fatal(err)
			}
		}
		used := e.dash.aheadUsed.Load()
		p := cl.get("/links?sort=clicks")
		if ids := rowsOf(t, p.body); !slices.Equal(ids, st.order) {
			t.Errorf("%s: order %v, want %v", st.name, ids, st.order)
		}
		var cells []string
		for _, m := range cellRE.FindAllStringSubmatch(p.body, -1) {
			cells = append(cells, m[1]+"="+m[2])
		}
		if !slices.Equal(cells, st.cells) {
			t.Errorf("%s: numbers %v, want %v", st.name, cells, st.cells)
		}
		if got := e.dash.aheadUsed.Load() > used; got != st.ahead {
			t.Errorf("%s: numbers read ahead %v, want %v", st.name, got, st.ahead)
		}
	}
	// A filtered table's walk skips ranked links: it reads nothing ahead.
	used := e.dash.aheadUsed.Load()
	if p := cl.get("/links?sort=clicks&q=example.com%2Fa"); !slices.Equal(rowsOf(t, p.body), []int64{a.ID}) {
		t.Errorf("search by clicks: %v", rowsOf(t, p.body))
	}
	if e.dash.aheadUsed.Load() != used {
		t.Error("a searched table used numbers read ahead")
	}
}

// TestTotalsAheadCover: the numbers read ahead serve the links they were
// read for, unless they count fewer clicks than the ranking the page was
// ordered by; a failed read, stats down or no link covered serve none.
func TestTotalsAheadCover(t *testing.T) {
	read := func(err error, up bool) *totalsAhead {
		a := &totalsAhead{done: make(chan struct{}), err: err, up: up,
			totals: map[int64]stats.Totals{1: {Clicks: 9, UniqueClicks: 5}, 2: {Clicks: 4, UniqueClicks: 4}, 3: {}}}
		close(a.done)
		return a
	}
	links := func(ids ...int64) []link.Link {
		out := make([]link.Link, len(ids))
		for i, id := range ids {
			out[i].ID = id
		}
		return out
	}
	tests := []struct {
		name    string
		a       *totalsAhead
		links   []link.Link
		ranked  map[int64]int64
		missing []int64
		ok      bool
	}{
		{"all read, as ranked", read(nil, true), links(1, 2, 3), map[int64]int64{1: 9, 2: 4}, nil, true},
		{"newer than the ranking", read(nil, true), links(1, 2), map[int64]int64{1: 8, 2: 3}, nil, true},
		{"one not read", read(nil, true), links(1, 7, 2), map[int64]int64{1: 9, 7: 5, 2: 4}, []int64{7}, true},
		{"one older than the ranking", read(nil, true), links(1, 2), map[int64]int64{1: 9, 2: 5}, []int64{2}, true},
		{"none read", read(nil, true), links(7, 8), nil, nil, false},
		{"read failed", read(errors.New("down"), false), links(1), nil, nil, false},
		{"stats down", read(nil, false), links(1), nil, nil, false},
		{"no links", read(nil, true), nil, nil, nil, false},
		{"nothing read ahead", nil, links(1), nil, nil, false},
	}
	for _, tt := range tests {
		totals, missing, ok := tt.a.cover(tt.links, tt.ranked)
		if ok != tt.ok || !slices.Equal(missing, tt.missing) {
			t.Errorf("%s: missing %v ok %v, want %v %v", tt.name, missing, ok, tt.missing, tt.ok)
		}
		if ok && !reflect.DeepEqual(totals[1], stats.Totals{Clicks: 9, UniqueClicks: 5}) {
			t.Errorf("%s: totals %v", tt.name, totals)
		}
	}
}

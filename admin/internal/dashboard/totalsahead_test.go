package dashboard

import (
	"slices"
	"testing"

	"kurz/shared/click"
)

// TestRankedPageReadsAhead: a table page by clicks reads its numbers
// beside the ranking when the ranking read last time names every link the
// page shows, and after the page is known when it does not (the first
// page, a link a click moved onto the page); either way the rows show the
// numbers of their own links, in the new order.
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
			[]int64{c.ID, a.ID, b.ID}, []string{"clicks=4", "unique=4", "clicks=3", "unique=2", "clicks=2", "unique=2"}, false},
		{"b passes a", []click.Row{humanClick(b, 9), humanClick(b, 10)},
			[]int64{c.ID, b.ID, a.ID}, []string{"clicks=4", "unique=4", "clicks=4", "unique=4", "clicks=3", "unique=2"}, true},
		{"no click since", nil,
			[]int64{c.ID, b.ID, a.ID}, []string{"clicks=4", "unique=4", "clicks=4", "unique=4", "clicks=3", "unique=2"}, true},
	}
	for _, st := range steps {
		if len(st.clicks) > 0 {
			insertClicks(t, e, st.clicks)
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
	if p := cl.get("/links?sort=clicks&q=example.com%2Fb"); !slices.Equal(rowsOf(t, p.body), []int64{b.ID}) {
		t.Errorf("search by clicks: %v", rowsOf(t, p.body))
	}
	if e.dash.aheadUsed.Load() != used {
		t.Error("a searched table used numbers read ahead")
	}
}

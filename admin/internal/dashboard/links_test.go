package dashboard

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"kurz/shared/click"
	"kurz/shared/link"
)

var (
	rowRE   = regexp.MustCompile(`<tr data-id="(\d+)">`)
	olderRE = regexp.MustCompile(`<a class="btn" href="([^"]+)" rel="next">`)
	newerRE = regexp.MustCompile(`<a class="btn" href="([^"]+)" rel="prev">`)
	cellRE  = regexp.MustCompile(`<td class="num stat (clicks|unique)" data-label="[^"]+">([^<]*)</td>`)
)

// rowsOf is the link ids of a table page, in order.
func rowsOf(t *testing.T, body string) []int64 {
	t.Helper()
	var ids []int64
	for _, m := range rowRE.FindAllStringSubmatch(body, -1) {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		ids = append(ids, id)
	}
	return ids
}

func linkOf(t *testing.T, body string, re *regexp.Regexp) string {
	t.Helper()
	if m := re.FindStringSubmatch(body); m != nil {
		return html.UnescapeString(m[1])
	}
	return ""
}

// TestLinkPages: the table walks a user's links in pages by keyset, forwards
// and back, without gaps or repeats, with and without a search, and by
// clicks (ClickHouse's order) by page number.
func TestLinkPages(t *testing.T) {
	e := newEnv(t)
	ann, bob := e.user("ann"), e.user("bob")
	var all []int64 // newest first
	for i := range 2*linksPerPage + 5 {
		title := "other"
		if i%2 == 0 {
			title = "even"
		}
		l := e.link(ann, map[string]string{"url": fmt.Sprintf("https://example.com/%d", i), "metatitle": title})
		all = append([]int64{l.ID}, all...)
	}
	e.link(bob, map[string]string{"url": "https://example.com/bob", "metatitle": "even"})
	c := e.client()
	c.signIn("ann")

	walk := func(start string) (pages [][]int64, back []int64) {
		t.Helper()
		path := start
		for path != "" {
			p := c.get(path)
			if p.status != http.StatusOK {
				t.Fatalf("%s: status %d", path, p.status)
			}
			pages = append(pages, rowsOf(t, p.body))
			if next := linkOf(t, p.body, olderRE); next != "" {
				path = next
				continue
			}
			if prev := linkOf(t, p.body, newerRE); prev != "" {
				back = rowsOf(t, c.get(prev).body)
			}
			path = ""
		}
		return pages, back
	}
	pages, back := walk("/links")
	if len(pages) != 3 || len(pages[0]) != linksPerPage || len(pages[2]) != 5 {
		t.Fatalf("page sizes %d pages: %v", len(pages), pages)
	}
	if got := slices.Concat(pages...); !slices.Equal(got, all) {
		t.Errorf("pages show %v, want %v", got, all)
	}
	if !slices.Equal(back, pages[1]) {
		t.Errorf("back from the last page shows %v, want %v", back, pages[1])
	}

	pages, _ = walk("/links?q=EVEN")
	var even []int64
	for i, id := range all {
		if (len(all)-1-i)%2 == 0 {
			even = append(even, id)
		}
	}
	if got := slices.Concat(pages...); !slices.Equal(got, even) {
		t.Errorf("search pages %v, want %v", got, even)
	}

	// By clicks: the link with most clicks first, then the others newest first.
	l := &link.Link{ID: all[len(all)-1], UserID: ann.ID}
	insertClicks(t, e, []click.Row{humanClick(l, 1), humanClick(l, 2)})
	p := c.get("/links?sort=clicks")
	if ids := rowsOf(t, p.body); len(ids) != linksPerPage || ids[0] != l.ID || ids[1] != all[0] {
		t.Errorf("by clicks: %v", ids)
	}
	if next := linkOf(t, p.body, olderRE); next != "/links?page=2&sort=clicks" {
		t.Errorf("next page by clicks: %q", next)
	}

	for _, bad := range []string{"/links?sort=size", "/links?after=x", "/links?before=1-0", "/links?page=0",
		"/links?q=" + strings.Repeat("x", maxSearchLen+1)} {
		if r := c.get(bad); r.status != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", bad, r.status)
		}
	}
}

// TestLinkNumbers: clicks and unique clicks come from ClickHouse as the
// API's list has them; while ClickHouse cannot be read the table shows
// "—" and says so, never 0, and sorting by clicks falls back to date.
func TestLinkNumbers(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	l := e.link(ann, map[string]string{"url": "https://example.com/counted"})
	e.link(ann, map[string]string{"url": "https://example.com/newer"})
	insertClicks(t, e, []click.Row{humanClick(l, 1), humanClick(l, 1), humanClick(l, 2)})
	c := e.client()
	c.signIn("ann")

	cells := func(body string) []string {
		var out []string
		for _, m := range cellRE.FindAllStringSubmatch(body, -1) {
			out = append(out, m[1]+"="+m[2])
		}
		return out
	}
	p := c.get("/links?sort=clicks")
	if got := cells(p.body); !slices.Equal(got, []string{"clicks=3", "unique=2", "clicks=0", "unique=0"}) {
		t.Errorf("numbers %v", got)
	}
	if strings.Contains(p.body, "stats-down") {
		t.Error("the unavailable notice shows while ClickHouse answers")
	}
	// What the API says for the same links.
	totals, up, err := e.api.LinkTotals(context.Background(), []link.Link{*l}, true)
	if err != nil || !up || totals[l.ID].Clicks != 3 || totals[l.ID].UniqueClicks != 2 {
		t.Fatalf("API totals %v %v %v", totals, up, err)
	}

	e.statsDown()
	p = c.get("/links?sort=clicks")
	if p.status != http.StatusOK {
		t.Fatalf("with ClickHouse down: status %d", p.status)
	}
	if got := cells(p.body); !slices.Equal(got, []string{"clicks=—", "unique=—", "clicks=—", "unique=—"}) {
		t.Errorf("numbers with ClickHouse down %v", got)
	}
	if !strings.Contains(p.body, `id="stats-down"`) || !strings.Contains(p.body, "sorted by date instead of clicks") {
		t.Error("no notice that the numbers are unavailable")
	}
	if ids := rowsOf(t, p.body); len(ids) != 2 || ids[1] != l.ID {
		t.Errorf("with ClickHouse down the order is %v, want newest first", ids)
	}
}

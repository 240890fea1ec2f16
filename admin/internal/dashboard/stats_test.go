package dashboard

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"kurz/shared/click"
	"kurz/shared/link"
)

// hit is one click row of the stats fixtures.
type hit struct {
	class   click.Class
	visitor uint64
	country string
	browser string
	ref     string
	cat     click.RefCategory
	at      time.Time
}

// xssRef is a referrer host carrying markup: it must come out as text.
const xssRef = `<img src=x onerror="document.title='pwned'">.example`

// insertHits writes hits of link l (owned by owner) to ClickHouse.
func insertHits(t *testing.T, e *env, owner *link.User, l *link.Link, hits []hit) {
	t.Helper()
	rows := make([]click.Row, len(hits))
	for i, h := range hits {
		at := h.at
		if at.IsZero() {
			at = time.Now()
		}
		os, device := platformOf(h.browser)
		rows[i] = click.Row{ClickID: uint64(time.Now().UnixNano()) + uint64(i), UnixNano: at.UnixNano(),
			Kind: click.KindLink, Class: h.class, Visitor: h.visitor, LinkID: uint64(l.ID), OwnerID: uint64(owner.ID),
			Country: h.country, Browser: h.browser, OS: os, Device: device, RefHost: h.ref, RefCategory: h.cat}
	}
	insertClicks(t, e, rows)
}

// platformOf is the OS and device class of a fixture's browser: Safari on
// iPhones, Samsung Internet on Android tablets, the rest on Windows PCs.
func platformOf(browser string) (os, device string) {
	switch browser {
	case "Safari":
		return "iOS", "mobile"
	case "Samsung Internet":
		return "Android", "tablet"
	}
	return "Windows", "desktop"
}

// statsHits: 5 people (3 visitors), a bot, two previews, a prefetch.
func statsHits() []hit {
	return []hit{
		{click.ClassHuman, 1, "DE", "Chrome", "facebook.com", click.RefSocialNetwork, time.Time{}},
		{click.ClassHuman, 1, "DE", "Chrome", "facebook.com", click.RefSocialNetwork, time.Time{}},
		{click.ClassHuman, 2, "US", "Firefox", xssRef, click.RefOther, time.Time{}},
		{click.ClassHuman, 3, `"><script>document.title='pwned'</script>`, "Safari", "", click.RefDirect, time.Time{}},
		{click.ClassHuman, 3, "DE", `<b>Bold</b>`, "t.co", click.RefMicroblog, time.Time{}},
		{click.ClassBot, 4, "US", "Other", "", click.RefDirect, time.Time{}},
		{click.ClassPreview, 5, "US", "Other", "", click.RefDirect, time.Time{}},
		{click.ClassPreview, 6, "US", "Other", "", click.RefDirect, time.Time{}},
		{click.ClassPrefetch, 1, "DE", "Chrome", "", click.RefDirect, time.Time{}},
	}
}

var tagText = regexp.MustCompile(`<[^>]*>`)

// textOf is the text of the element with id in body (tags removed).
func textOf(t *testing.T, body, id string) string {
	t.Helper()
	i := strings.Index(body, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no element #%s", id)
	}
	rest := body[i:]
	end := strings.Index(rest, "</")
	return strings.TrimSpace(tagText.ReplaceAllString(rest[strings.Index(rest, ">")+1:end], ""))
}

func TestStatsPage(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	l := e.link(ann, map[string]string{"url": "https://example.com/spring", "custom": "spring"})
	insertHits(t, e, ann, l, statsHits())
	c := e.client()
	c.signIn("ann")
	p := c.get(fmt.Sprintf("/links/%d/stats", l.ID))
	if p.status != http.StatusOK {
		t.Fatalf("status %d", p.status)
	}
	for id, want := range map[string]string{"kpi-clicks": "5", "kpi-unique": "3", "kpi-social": "3"} {
		if got := textOf(t, p.body, id); got != want {
			t.Errorf("#%s = %q, want %q", id, got, want)
		}
	}
	for _, want := range []string{
		`<td class="name">Germany</td><td class="num">3</td>`,
		`<td class="name">United States</td><td class="num">1</td>`,
		`<td class="name">Unknown</td><td class="num">1</td>`,
		`<td class="name">facebook.com</td><td class="num">2</td>`,
		`<td class="name">Social networks</td><td class="num">2</td>`,
		`<th scope="row">Bots and crawlers</th><td class="num range">1</td><td class="num all">1</td>`,
		`<th scope="row">Link previews (chat apps, social sites)</th><td class="num range">2</td><td class="num all">2</td>`,
		`<th scope="row">Browser prefetches</th><td class="num range">1</td><td class="num all">1</td>`,
		`<th scope="row">People, for comparison</th><td class="num range">5</td><td class="num all">5</td>`,
		`<td class="name">Desktop</td><td class="num">4</td>`,
		`<td class="name">Mobile</td><td class="num">1</td>`,
		`&lt;img src=x onerror=&#34;document.title=&#39;pwned&#39;&#34;&gt;.example`,
		`&lt;b&gt;Bold&lt;/b&gt;`,
		`id="freshness">Counted up to <strong>`,
		`href="/links/` + fmt.Sprint(l.ID) + `/stats.csv?from=`,
		`<path class="m5" d="M`, // Germany, the most clicked
		`data-cc="DE"><title>Germany: 3 clicks</title>`,
		`data-cc="US"><title>United States: 1 click</title>`,
		`data-cc="FR"><title>France: 0 clicks</title>`,
		`<span id="unmapped">1 from unknown places</span>`,
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if csp := p.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'nonce-") || strings.Contains(csp, "unsafe") {
		t.Errorf("CSP %q", csp)
	}
	for _, bad := range []string{"<img src=x", "<b>Bold", "<script>document", "stats-down", " style=", "<style"} {
		if strings.Contains(p.body, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	// Shades: Germany has the top 3 clicks (step 5), the US 1 of 3 (step 2).
	for cc, class := range map[string]string{"DE": "m5", "US": "m2", "FR": "m0"} {
		if !regexp.MustCompile(`<path class="` + class + `" d="M[^"]+" data-cc="` + cc + `">`).MatchString(p.body) {
			t.Errorf("%s is not shaded %s", cc, class)
		}
	}
	// The series: today's bucket has the 5 clicks.
	today := time.Now().UTC().Format(time.DateOnly)
	if !strings.Contains(p.body, "<title>"+today+": 5 clicks, 3 unique</title>") {
		t.Errorf("no bar for today with 5 clicks")
	}
}

func TestStatsRangeAndCSV(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	l := e.link(ann, map[string]string{"url": "https://example.com/csv"})
	// Wednesday 2026-03-04 and Monday 2026-03-09: two ISO weeks.
	day := func(d, h int) time.Time { return time.Date(2026, 3, d, h, 30, 0, 0, time.UTC) }
	insertHits(t, e, ann, l, []hit{
		{click.ClassHuman, 1, "DE", "Chrome", "", click.RefDirect, day(4, 10)},
		{click.ClassHuman, 1, "DE", "Chrome", "", click.RefDirect, day(4, 11)},
		{click.ClassHuman, 2, "DE", "Chrome", "", click.RefDirect, day(9, 0)},
		{click.ClassHuman, 3, "DE", "Chrome", "", click.RefDirect, day(12, 23)},
		{click.ClassBot, 4, "DE", "Chrome", "", click.RefDirect, day(9, 1)},
	})
	c := e.client()
	c.signIn("ann")
	base := fmt.Sprintf("/links/%d/stats.csv?from=2026-03-04&to=2026-03-12", l.ID)
	for _, tc := range []struct{ interval, want string }{
		{"week", "week,clicks,unique_clicks\n2026-03-02,2,1\n2026-03-09,2,2\n"},
		{"day", "day,clicks,unique_clicks\n2026-03-04,2,1\n2026-03-05,0,0\n2026-03-06,0,0\n2026-03-07,0,0\n" +
			"2026-03-08,0,0\n2026-03-09,1,1\n2026-03-10,0,0\n2026-03-11,0,0\n2026-03-12,1,1\n"},
	} {
		p := c.get(base + "&interval=" + tc.interval)
		got := p.body
		if p.status != http.StatusOK || got != tc.want {
			t.Errorf("%s: status %d\n%s\nwant\n%s", tc.interval, p.status, got, tc.want)
		}
		if ct := p.header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
			t.Errorf("%s: Content-Type %q", tc.interval, ct)
		}
	}
	p := c.get(base + "&interval=hour")
	if lines := strings.Count(p.body, "\n"); p.status != http.StatusOK || lines != 1+9*24 {
		t.Errorf("hour: status %d, %d lines", p.status, lines)
	}
	if !strings.Contains(p.body, "2026-03-04 10:00:00,1,1\n") {
		t.Errorf("hour: no 10:00 bucket")
	}
	page := c.get(fmt.Sprintf("/links/%d/stats?from=2026-03-04&to=2026-03-12&interval=week", l.ID))
	if got := textOf(t, page.body, "kpi-clicks"); page.status != http.StatusOK || got != "4" {
		t.Errorf("week page: status %d, clicks %q", page.status, got)
	}
	for _, q := range []string{"interval=month", "from=2026-03-12&to=2026-03-01", "from=yesterday",
		"from=2026-01-01&to=2026-03-01&interval=hour", "from=2020-01-01&to=2026-03-01"} {
		for _, path := range []string{"/stats?", "/stats.csv?"} {
			if p := c.get(fmt.Sprintf("/links/%d%s%s", l.ID, path, q)); p.status != http.StatusBadRequest {
				t.Errorf("%s%s: status %d, want 400", path, q, p.status)
			}
		}
	}
}

func TestStatsOtherUser404(t *testing.T) {
	e := newEnv(t)
	ann, _ := e.user("ann"), e.user("bob")
	l := e.link(ann, map[string]string{"url": "https://example.com/anns-secret"})
	insertHits(t, e, ann, l, statsHits())
	bob := e.client()
	bob.signIn("bob")
	for _, path := range []string{fmt.Sprintf("/links/%d/stats", l.ID), fmt.Sprintf("/links/%d/stats.csv", l.ID),
		"/links/999999999/stats", "/links/abc/stats", "/links/0/stats.csv"} {
		p := bob.get(path)
		if p.status != http.StatusNotFound || strings.Contains(p.body, "anns-secret") || strings.Contains(p.body, "facebook") {
			t.Errorf("bob gets %s: status %d", path, p.status)
		}
	}
	if p := e.client().get(fmt.Sprintf("/links/%d/stats.csv", l.ID)); p.status != http.StatusSeeOther ||
		!strings.HasPrefix(p.header.Get("Location"), "/login") {
		t.Errorf("signed out: status %d, location %q", p.status, p.header.Get("Location"))
	}
}

func TestStatsUnavailable(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	l := e.link(ann, map[string]string{"url": "https://example.com/down"})
	insertHits(t, e, ann, l, statsHits())
	e.statsDown()
	c := e.client()
	c.signIn("ann")
	p := c.get(fmt.Sprintf("/links/%d/stats", l.ID))
	if p.status != http.StatusOK || !strings.Contains(p.body, `id="stats-down"`) {
		t.Fatalf("status %d, notice missing", p.status)
	}
	for _, bad := range []string{"kpi-clicks", "Counted up to", "Download CSV", `class="num">0<`} {
		if strings.Contains(p.body, bad) {
			t.Errorf("stats down: page shows %q", bad)
		}
	}
	if p := c.get(fmt.Sprintf("/links/%d/stats.csv", l.ID)); p.status != http.StatusServiceUnavailable {
		t.Errorf("CSV while down: status %d, want 503", p.status)
	}
	home := c.get("/")
	if home.status != http.StatusOK || !strings.Contains(home.body, `id="stats-down"`) {
		t.Fatalf("home while down: status %d", home.status)
	}
	for _, id := range []string{"kpi-today", "kpi-week", "kpi-month"} {
		if got := textOf(t, home.body, id); got != "—" {
			t.Errorf("home while down: #%s = %q, want —", id, got)
		}
	}
}

func TestHomePage(t *testing.T) {
	e := newEnv(t)
	ann, bob := e.user("ann"), e.user("bob")
	c := e.client()
	c.signIn("ann")
	empty := c.get("/")
	if empty.status != http.StatusOK || !strings.Contains(empty.body, "No links yet") || textOf(t, empty.body, "kpi-today") != "0" {
		t.Fatalf("empty home: status %d", empty.status)
	}
	a := e.link(ann, map[string]string{"url": "https://example.com/a", "custom": "aaa"})
	b := e.link(ann, map[string]string{"url": "https://example.com/b", "custom": "bbb"})
	e.link(ann, map[string]string{"url": "https://example.com/c", "custom": "ccc"})
	bobs := e.link(bob, map[string]string{"url": "https://example.com/bob", "custom": "bobs"})
	now := time.Now().UTC()
	ago := func(days int) time.Time { return now.AddDate(0, 0, -days) }
	insertHits(t, e, ann, a, []hit{
		{click.ClassHuman, 1, "DE", "Chrome", "", click.RefDirect, now},
		{click.ClassHuman, 2, "DE", "Chrome", "", click.RefDirect, ago(10)},
		{click.ClassBot, 3, "DE", "Chrome", "", click.RefDirect, now},
	})
	insertHits(t, e, ann, b, []hit{
		{click.ClassHuman, 1, "DE", "Chrome", "", click.RefDirect, now},
		{click.ClassHuman, 4, "DE", "Chrome", "", click.RefDirect, ago(3)},
		{click.ClassHuman, 5, "DE", "Chrome", "", click.RefDirect, ago(40)},
	})
	insertHits(t, e, bob, bobs, []hit{{click.ClassHuman, 9, "DE", "Chrome", "", click.RefDirect, now}})
	p := c.get("/")
	if p.status != http.StatusOK {
		t.Fatalf("status %d", p.status)
	}
	for id, want := range map[string]string{"kpi-today": "2", "kpi-week": "3", "kpi-month": "4"} {
		if got := textOf(t, p.body, id); got != want {
			t.Errorf("#%s = %q, want %q", id, got, want)
		}
	}
	top := p.body[strings.Index(p.body, `id="top-h"`):strings.Index(p.body, `id="recent-h"`)]
	if ib, ia := strings.Index(top, "/bbb<"), strings.Index(top, "/aaa<"); ib < 0 || ia < 0 || ib > ia ||
		strings.Contains(top, "/ccc<") || strings.Contains(top, "bobs") {
		t.Errorf("top links: want bbb (3) then aaa (2), no ccc or bob's:\n%s", top)
	}
	recent := p.body[strings.Index(p.body, `id="recent-h"`):]
	if ic, ib := strings.Index(recent, "/ccc<"), strings.Index(recent, "/bbb<"); ic < 0 || ib < 0 || ic > ib || strings.Contains(recent, "bobs") {
		t.Errorf("recent links: want ccc before bbb, no bob's")
	}
}

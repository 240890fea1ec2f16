package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"kurz/admin/internal/api"
	"kurz/shared/browsertest"
	"kurz/shared/click"
	"kurz/shared/link"
	"kurz/shared/pgstore/pgtest"
)

// groupedLink creates a link of u in campaign and channel (0: none)
// through the API server's write path.
func (e *env) groupedLink(u *link.User, dest, title string, campaign, channel int64) *link.Link {
	e.t.Helper()
	in := &api.LinkInput{URL: &dest, MetaTitle: &title}
	if campaign != 0 {
		in.Campaign = &campaign
	}
	if channel != 0 {
		in.Channel = &channel
	}
	res, err := e.api.AddLink(context.Background(), u, in)
	if err != nil {
		e.t.Fatalf("add link %s: %v", dest, err)
	}
	return res.Link
}

// campaignAndChannel makes a campaign and a channel of u.
func (e *env) campaignAndChannel(u *link.User, campaign, channel string) (campaignID, channelID int64) {
	e.t.Helper()
	ctx := context.Background()
	c, err := e.store.CreateCampaign(ctx, link.Campaign{UserID: u.ID, Name: campaign})
	if err != nil {
		e.t.Fatal(err)
	}
	ch, err := e.store.CreateChannel(ctx, link.Channel{UserID: u.ID, Name: channel})
	if err != nil {
		e.t.Fatal(err)
	}
	return c.ID, ch.ID
}

// TestLinkFilters: the campaign and channel filters keep their links only,
// combine with the search and both orders, and keyset pages forwards and
// back keep them; the selects offer the user's own; another user's or an
// unknown id is 404, a malformed one 400.
func TestLinkFilters(t *testing.T) {
	e := newEnv(t)
	ann, bob := e.user("ann"), e.user("bob")
	spring, news := e.campaignAndChannel(ann, "Spring <b>sale</b>", "Newsletter")
	autumn, _ := e.campaignAndChannel(ann, "Autumn", "Radio")
	bobCampaign, bobChannel := e.campaignAndChannel(bob, "Bob's campaign", "Bob's channel")
	var inSpring, inNews, inBoth, even []int64 // newest first
	for i := range linksPerPage + 7 {
		title := "odd"
		if i%2 == 0 {
			title = "even"
		}
		campaign, channel := spring, int64(0)
		if i%3 == 0 {
			channel = news
		}
		if i%5 == 4 {
			campaign = autumn
		}
		l := e.groupedLink(ann, fmt.Sprintf("https://example.com/%d", i), title, campaign, channel)
		if campaign == spring {
			inSpring = append([]int64{l.ID}, inSpring...)
			if title == "even" {
				even = append([]int64{l.ID}, even...)
			}
		}
		if channel == news {
			inNews = append([]int64{l.ID}, inNews...)
			if campaign == spring {
				inBoth = append([]int64{l.ID}, inBoth...)
			}
		}
	}
	e.groupedLink(ann, "https://example.com/loose", "even", 0, 0)
	e.groupedLink(bob, "https://example.com/bob", "even", bobCampaign, bobChannel)
	c := e.client()
	c.signIn("ann")

	// walk follows "next" to the end and one "previous" back.
	walk := func(t *testing.T, start string) (all []int64, pages int, back []int64) {
		t.Helper()
		path := start
		for path != "" {
			p := c.get(path)
			if p.status != http.StatusOK {
				t.Fatalf("%s: status %d", path, p.status)
			}
			all, pages = append(all, rowsOf(t, p.body)...), pages+1
			next := linkOf(t, p.body, olderRE)
			if next == "" {
				if prev := linkOf(t, p.body, newerRE); prev != "" {
					back = rowsOf(t, c.get(prev).body)
					checkKeeps(t, prev, start)
				}
			} else {
				checkKeeps(t, next, start)
			}
			path = next
		}
		return all, pages, back
	}
	sp, nw, au := strconv.FormatInt(spring, 10), strconv.FormatInt(news, 10), strconv.FormatInt(autumn, 10)
	for _, tc := range []struct {
		name  string
		path  string
		want  []int64
		pages int
	}{
		{"campaign", "/links?campaign=" + sp, inSpring, 2},
		{"channel", "/links?channel=" + nw, inNews, 1},
		{"campaign and channel", "/links?campaign=" + sp + "&channel=" + nw, inBoth, 1},
		{"campaign and search", "/links?campaign=" + sp + "&q=EVEN", even, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, pages, back := walk(t, tc.path)
			if !slices.Equal(got, tc.want) || pages != tc.pages {
				t.Errorf("%d pages %v, want %d pages %v", pages, got, tc.pages, tc.want)
			}
			if tc.pages > 1 && !slices.Equal(back, tc.want[:linksPerPage]) {
				t.Errorf("back from the last page: %v", back)
			}
		})
	}

	// By clicks: the most clicked of the campaign first, then newest first;
	// a clicked link outside the campaign does not show.
	clicked := &link.Link{ID: inSpring[len(inSpring)-1], UserID: ann.ID}
	outside := &link.Link{ID: inNews[0], UserID: ann.ID}
	if slices.Contains(inSpring, outside.ID) {
		outside.ID = e.groupedLink(ann, "https://example.com/autumn-clicked", "x", autumn, 0).ID
	}
	insertClicks(t, e, []click.Row{humanClick(clicked, 1), humanClick(outside, 2), humanClick(outside, 3)})
	p := c.get("/links?sort=clicks&campaign=" + sp)
	if ids := rowsOf(t, p.body); len(ids) != linksPerPage || ids[0] != clicked.ID || ids[1] != inSpring[0] || slices.Contains(ids, outside.ID) {
		t.Errorf("campaign by clicks: %v", ids)
	}
	if next := linkOf(t, p.body, olderRE); next != "/links?campaign="+sp+"&page=2&sort=clicks" {
		t.Errorf("next page of the campaign by clicks: %q", next)
	}
	if got := rowsOf(t, c.get("/links?sort=clicks&page=2&campaign="+sp).body); len(got) != len(inSpring)-linksPerPage {
		t.Errorf("second page of the campaign by clicks: %v", got)
	}

	// The selects: the user's own, the picked one selected, markup as text;
	// the bulk form carries the filter on.
	p = c.get("/links?campaign=" + sp + "&channel=" + nw)
	for _, want := range []string{`<label for="campaign">Campaign</label>`, `<label for="channel">Channel</label>`,
		`<option value="` + sp + `" selected>Spring &lt;b&gt;sale&lt;/b&gt;</option>`, `<option value="` + au + `">Autumn</option>`,
		`<option value="` + nw + `" selected>Newsletter</option>`, `in campaign “Spring &lt;b&gt;sale&lt;/b&gt;”`,
		`<input type="hidden" name="campaign" value="` + sp + `">`, `<input type="hidden" name="channel" value="` + nw + `">`,
		`Clear filters`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("filtered page lacks %s", want)
		}
	}
	if strings.Contains(p.body, "Bob&#39;s") || strings.Contains(p.body, "<b>sale") {
		t.Error("another user's campaign or channel is offered, or markup is not text")
	}
	// Empty state of a filter without links.
	empty, _ := e.campaignAndChannel(ann, "Empty", "Empty channel")
	p = c.get("/links?campaign=" + strconv.FormatInt(empty, 10))
	if p.status != http.StatusOK || !strings.Contains(p.body, `id="no-match"`) || len(rowsOf(t, p.body)) != 0 ||
		!strings.Contains(p.body, `<select id="campaign"`) {
		t.Errorf("empty campaign: status %d, rows %v", p.status, rowsOf(t, p.body))
	}

	for path, want := range map[string]int{
		"/links?campaign=" + strconv.FormatInt(bobCampaign, 10): http.StatusNotFound,
		"/links?channel=" + strconv.FormatInt(bobChannel, 10):   http.StatusNotFound,
		"/links?campaign=987654321":                             http.StatusNotFound,
		"/links?campaign=x":                                     http.StatusBadRequest,
		"/links?channel=-1":                                     http.StatusBadRequest,
	} {
		if r := c.get(path); r.status != want {
			t.Errorf("%s: status %d, want %d", path, r.status, want)
		}
	}
}

// checkKeeps fails when the page link next lost a filter of start.
func checkKeeps(t *testing.T, next, start string) {
	t.Helper()
	nu, _ := url.Parse(next)
	su, _ := url.Parse(start)
	for k, v := range su.Query() {
		if got := nu.Query()[k]; !slices.Equal(got, v) {
			t.Errorf("page link %s lost %s=%v", next, k, v)
		}
	}
}

var bulkRowRE = regexp.MustCompile(`<tr data-id="(\d+)"><td class="short">`)

// TestBulkDelete: the confirmation page lists what will be deleted; the
// post deletes exactly those, with the session's CSRF token, and leads
// back to the filtered table; one id of another user (or unknown) is 404
// and deletes nothing, on the page and in the post.
func TestBulkDelete(t *testing.T) {
	e := newEnv(t)
	ann, bob := e.user("ann"), e.user("bob")
	spring, _ := e.campaignAndChannel(ann, "Spring", "News")
	var ids []int64 // oldest first
	for i := range 5 {
		ids = append(ids, e.groupedLink(ann, fmt.Sprintf("https://example.com/%d", i), fmt.Sprintf("<i>title %d</i>", i), spring, 0).ID)
	}
	bobs := e.link(bob, map[string]string{"url": "https://example.com/bob"})
	c := e.client()
	c.signIn("ann")
	ctx := context.Background()
	count := func(u *link.User) int {
		t.Helper()
		n, err := e.store.CountLinks(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// The table: a labelled checkbox per row inside the bulk form.
	p := c.get("/links?campaign=" + id(spring))
	for _, want := range []string{`<form id="bulk" method="get" action="/links/delete">`,
		`<input type="checkbox" name="id" value="` + id(ids[0]) + `" id="pick-` + id(ids[0]) + `"><label for="pick-` + id(ids[0]) + `" class="visually-hidden">Select `,
		`id="bulk-delete">Delete selected…</button>`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("table lacks %s", want)
		}
	}

	// Confirmation: the picked links, newest first, markup as text, the
	// ids and the filter in the form.
	confirm := "/links/delete?campaign=" + id(spring) + "&id=" + id(ids[1]) + "&id=" + id(ids[3]) + "&id=" + id(ids[1])
	p = c.get(confirm)
	if p.status != http.StatusOK {
		t.Fatalf("confirmation: status %d", p.status)
	}
	var listed []string
	for _, m := range bulkRowRE.FindAllStringSubmatch(p.body, -1) {
		listed = append(listed, m[1])
	}
	if !slices.Equal(listed, []string{id(ids[3]), id(ids[1])}) {
		t.Errorf("confirmation lists %v", listed)
	}
	for _, want := range []string{"Delete these 2 links?", "&lt;i&gt;title 3&lt;/i&gt;", `<input type="hidden" name="id" value="` + id(ids[3]) + `">`,
		`<input type="hidden" name="campaign" value="` + id(spring) + `">`, `<a class="btn" href="/links?campaign=` + id(spring) + `">Cancel</a>`,
		`<button class="btn btn-danger" type="submit">Delete 2 links</button>`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("confirmation lacks %s", want)
		}
	}
	if strings.Contains(p.body, "<i>title") {
		t.Error("a title's markup is not text on the confirmation page")
	}
	if count(ann) != 5 {
		t.Fatal("the confirmation page deleted something")
	}

	// Another user's id, an unknown one, a malformed one: 404, nothing deleted.
	token := c.token(confirm)
	for _, bad := range [][]string{{id(ids[0]), id(bobs.ID)}, {id(bobs.ID)}, {id(ids[0]), "987654321"}, {id(ids[0]), "x"}} {
		q := url.Values{"id": bad}
		if r := c.get("/links/delete?" + q.Encode()); r.status != http.StatusNotFound || strings.Contains(r.body, "example.com/bob") {
			t.Errorf("confirmation of %v: status %d", bad, r.status)
		}
		q.Set("csrf", token)
		if r := c.post("/links/delete", q); r.status != http.StatusNotFound {
			t.Errorf("delete %v: status %d, want 404", bad, r.status)
		}
		if count(ann) != 5 || count(bob) != 1 {
			t.Fatalf("delete %v changed something: ann %d, bob %d links", bad, count(ann), count(bob))
		}
	}
	// Without the token: refused, nothing deleted.
	if r := c.post("/links/delete", url.Values{"id": {id(ids[1])}}); r.status != http.StatusForbidden || count(ann) != 5 {
		t.Fatalf("delete without a token: status %d, %d links", r.status, count(ann))
	}
	// No link picked: the page says so; posting none is refused.
	if r := c.get("/links/delete"); r.status != http.StatusOK || !strings.Contains(r.body, `id="none-picked"`) {
		t.Errorf("confirmation without ids: status %d", r.status)
	}
	if r := c.post("/links/delete", url.Values{"csrf": {token}}); r.status != http.StatusBadRequest {
		t.Errorf("delete without ids: status %d", r.status)
	}
	tooMany := url.Values{}
	for i := range maxBulk + 1 {
		tooMany.Add("id", strconv.Itoa(i+1))
	}
	if r := c.get("/links/delete?" + tooMany.Encode()); r.status != http.StatusBadRequest {
		t.Errorf("%d ids: status %d", maxBulk+1, r.status)
	}

	// The real thing: exactly the picked links go, back to the filtered table.
	r := c.post("/links/delete", url.Values{"csrf": {token}, "id": {id(ids[1]), id(ids[3])}, "campaign": {id(spring)}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/links?campaign="+id(spring) {
		t.Fatalf("delete: status %d, location %q", r.status, r.header.Get("Location"))
	}
	p = c.get(r.header.Get("Location"))
	if got := rowsOf(t, p.body); !slices.Equal(got, []int64{ids[4], ids[2], ids[0]}) {
		t.Errorf("left after the delete: %v", got)
	}
	if !strings.Contains(p.body, "2 links deleted.") {
		t.Error("no notice of the deletion")
	}
	if count(bob) != 1 {
		t.Error("bob's link is gone")
	}
}

// TestLinkQRThumbnails: each row shows its link's QR image from the edge
// (lazy, no render on the admin), the CSP allows exactly the origins of
// the page's short links, and an expired link shows none.
func TestLinkQRThumbnails(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	e.link(ann, map[string]string{"url": "https://example.com/a", "custom": "thumb"})
	expired := e.link(ann, map[string]string{"url": "https://example.com/b", "custom": "gone"})
	if _, err := pgtest.Pool(e.store).Exec(context.Background(), `UPDATE links SET expires_at = now() - interval '1 hour' WHERE id = $1`, expired.ID); err != nil {
		t.Fatal(err)
	}
	c := e.client()
	c.signIn("ann")
	p := c.get("/links")
	want := `<a href="http://sho.rt/thumb/qr" aria-label="QR code of sho.rt/thumb"><img src="http://sho.rt/thumb/qr/100.svg" width="44" height="44" alt="" loading="lazy"></a>`
	if !strings.Contains(p.body, want) {
		t.Errorf("no thumbnail %s", want)
	}
	if strings.Contains(p.body, "/gone/qr") {
		t.Error("the expired link has a thumbnail (the edge answers 410)")
	}
	if strings.Count(p.body, "<img ") != 1 {
		t.Errorf("%d images, want 1", strings.Count(p.body, "<img "))
	}
	csp := p.header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "img-src 'self' data: http://sho.rt;") || !strings.Contains(csp, "script-src 'nonce-") {
		t.Errorf("CSP %q", csp)
	}
	// Other pages keep the strict policy.
	if csp := c.get("/account").header.Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self' data:;") {
		t.Errorf("account page CSP %q", csp)
	}
}

func TestQROrigins(t *testing.T) {
	rows := []linkRow{{QR: "https://sho.rt/a/qr/100.svg"}, {QR: "https://sho.rt/b/qr/100.svg"}, {QR: ""},
		{QR: "http://brand.example:8080/c/qr/100.svg"}, {QR: "https://bad;host/x"}, {QR: "javascript:alert(1)"},
		{QR: "https://[2001:db8::1]/d/qr/100.svg"}}
	got := qrOrigins(rows)
	want := []string{"https://sho.rt", "http://brand.example:8080", "https://[2001:db8::1]"}
	if !slices.Equal(got, want) {
		t.Errorf("qrOrigins = %v, want %v", got, want)
	}
}

// shootFilters photographs the table filtered by a campaign and a
// channel, a filter without links, and the bulk delete's confirmation
// and its empty state (TestScreenshots).
func shootFilters(t *testing.T, e *env, tab *browsertest.Tab, name string) {
	t.Helper()
	u, _, err := e.store.LoginUser(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	spring, news := e.campaignAndChannel(u, "Spring sale 2026 <script>alert(1)</script>", "Newsletter")
	empty, _ := e.campaignAndChannel(u, "Autumn (nothing yet)", "Podcast")
	var ids []string
	for i, title := range []string{"Spring landing, German", "Spring landing, Austrian", "Spring video"} {
		channel := int64(0)
		if i != 1 {
			channel = news
		}
		l := e.groupedLink(u, fmt.Sprintf("https://shop.example.com/spring/%d?utm_campaign=spring", i), title, spring, channel)
		ids = append(ids, id(l.ID))
	}
	tab.Open(e.base + "/links?campaign=" + id(spring))
	if len(rowsOfTab(tab)) != 3 {
		t.Errorf("campaign filter shows %v", rowsOfTab(tab))
	}
	expectInert(t, tab, "table filtered by a campaign named with markup")
	shoot(t, tab, "12a-links-campaign")
	tab.Open(e.base + "/links?campaign=" + id(spring) + "&channel=" + id(news) + "&q=landing")
	if got := rowsOfTab(tab); len(got) != 1 || got[0] != ids[0] {
		t.Errorf("campaign, channel and search show %v, want [%s]", got, ids[0])
	}
	shoot(t, tab, "12b-links-campaign-channel-search")
	tab.Open(e.base + "/links?campaign=" + id(empty))
	shoot(t, tab, "12c-links-filter-empty")

	// Tick two rows and the "select all" of the script, then untick one.
	tab.Open(e.base + "/links?campaign=" + id(spring))
	tab.Click("[data-select-all]")
	if n := browsertest.Eval[int](tab, `document.querySelectorAll("input[name=id]:checked").length`); n != 3 {
		t.Errorf("select all ticked %d boxes", n)
	}
	tab.Click("#pick-" + ids[1])
	if browsertest.Eval[bool](tab, `document.querySelector("[data-select-all]").checked`) {
		t.Error("select all stays ticked with a row unticked")
	}
	tab.ClickNavigate("#bulk-delete")
	if got := tab.Text("main h1"); got != "Delete these 2 links?" {
		t.Errorf("confirmation heading %q", got)
	}
	expectInert(t, tab, "bulk delete confirmation")
	shoot(t, tab, "12d-bulk-delete-confirm")
	tab.ClickNavigate("main form .btn:not(.btn-danger)") // Cancel: back to the campaign
	if got := tab.URL(); got != e.base+"/links?campaign="+id(spring) {
		t.Errorf("cancel leads to %s", got)
	}
	tab.Open(e.base + "/links/delete")
	shoot(t, tab, "12e-bulk-delete-none")
}

// rowsOfTab is the link ids of the table shown, in order.
func rowsOfTab(tab *browsertest.Tab) []string {
	return browsertest.Eval[[]string](tab, `Array.from(document.querySelectorAll("tbody tr[data-id]")).map(r => r.dataset.id)`)
}

// TestRankNeed: a filtered list by clicks reads a longer start of the
// ranking at once; an unfiltered one only as far as its page.
func TestRankNeed(t *testing.T) {
	tests := []struct {
		q    linkQuery
		want int
	}{
		{linkQuery{page: 1}, linksPerPage + 1},
		{linkQuery{page: 40}, 40*linksPerPage + 1},
		{linkQuery{page: 1, search: "spring"}, filteredRankNeed},
		{linkQuery{page: 1, campaign: 3}, filteredRankNeed},
		{linkQuery{page: 1, channel: 3}, filteredRankNeed},
		{linkQuery{page: 200, search: "spring"}, 200*linksPerPage + 1},
	}
	for _, tt := range tests {
		if got := tt.q.rankNeed(); got != tt.want {
			t.Errorf("%+v: %d, want %d", tt.q, got, tt.want)
		}
	}
}

package dashboard

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kurz/shared/browsertest"
)

// Visitors' browsers: a desktop one and an iPhone.
const (
	uaWindowsChrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
	uaIPhoneSafari  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
)

// TestBrowserEndToEndEdge is issue 16's chain through the real edge, in
// Chromium: sign up → create a link with a country rule and a device rule
// → visit the short URL through a running edge as a desktop visitor from
// Germany and as an iPhone visitor from the US (each lands where its rule
// says) → both clicks, their countries and devices on the link's
// statistics page, counted by the edge's pipeline into ClickHouse → edit
// the rule (the edge follows) → delete the link with the table's bulk
// delete (the edge answers 404). Every wait polls a condition.
func TestBrowserEndToEndEdge(t *testing.T) {
	edgeAddr, opt := withEdge(t)
	e := newEnv(t, opt)
	e.startEdge(edgeAddr)
	landing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Landing</title><h1 id="landed">%s</h1>`, r.URL.Path)
	}))
	defer landing.Close()
	// Another host name than the short domain's (127.0.0.1): the API
	// refuses destinations on the short domain itself (redirect loops).
	dest := strings.Replace(landing.URL, "127.0.0.1", "localhost", 1)

	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)
	e.signUp(tab, "erika")

	tab.ClickNavigate("main a[href='/links/new']")
	tab.SetValue("#f-url", dest+"/home")
	tab.SetValue("#f-custom", "spring")
	tab.ClickNavigate("input[name=add-geo]")
	tab.ClickNavigate("input[name=add-device]")
	tab.SetValue("#geo-key-0", "Germany")
	tab.SetValue("#geo-url-0", dest+"/de")
	tab.SetValue("#device-key-0", "iphone")
	tab.SetValue("#device-url-0", dest+"/iphone")
	if st := tab.ClickNavigate(".form-foot button[value=save]"); st != http.StatusOK || tab.URL() != e.base+"/links" {
		t.Fatalf("create: status %d at %s: %s", st, tab.URL(), tab.Text("main"))
	}
	short := e.cfg.BaseURL + "/spring"
	id := tab.Attr("tbody tr", "data-id")
	// The edge hears of the link by PostgreSQL's change notice; its QR
	// image (which counts no visit) answers once it has.
	waitFor(t, 5*time.Second, "the edge to know the link", func() bool { return edgeStatus(short+"/qr") == http.StatusOK })

	visitor := browsertest.NewTab(t)
	visit := func(ua, country, wantPath string) {
		t.Helper()
		visitor.SetUserAgent(ua)
		visitor.SetHeaders(map[string]string{edgeCountryHeader: country})
		if st := visitor.Open(short); st != http.StatusOK {
			t.Fatalf("visit from %s: status %d", country, st)
		}
		if got := visitor.URL(); got != dest+wantPath {
			t.Fatalf("the visitor from %s (%.20s…) landed on %s, want %s", country, ua, got, dest+wantPath)
		}
	}
	visit(uaWindowsChrome, "DE", "/de")    // the country rule
	visit(uaIPhoneSafari, "US", "/iphone") // no country rule matches: the device rule

	// Both clicks reach the statistics page through the edge's pipeline.
	stats := e.base + "/links/" + id + "/stats"
	// One INSERT fills ClickHouse's tables one after another, and a page
	// read meanwhile can see the clicks in the hours but not yet in the
	// breakdowns or the visitor sketches (0012's views, created last): wait
	// until the range's clicks, its devices and its unique clicks show
	// both; a unique count that never reaches 2 still fails here.
	waitFor(t, 20*time.Second, "both clicks and both visitors on the statistics page", func() bool {
		tab.Open(stats)
		return browsertest.Eval[string](tab, `(document.getElementById("kpi-clicks")||{}).textContent||""`) == "2" &&
			browsertest.Eval[int](tab, `document.querySelectorAll("#devices tbody tr").length`) == 2 &&
			browsertest.Eval[string](tab, `(document.getElementById("kpi-unique")||{}).textContent||""`) == "2"
	})
	if got := tab.Text("#kpi-unique"); got != "2" {
		t.Errorf("unique clicks %q, want 2 (two browsers)", got)
	}
	for table, want := range map[string][]string{
		"countries": {"Germany 1", "United States 1"},
		"devices":   {"Desktop 1", "Mobile 1"},
		"browsers":  {"Chrome 1", "Safari 1"},
	} {
		got := browsertest.Eval[[]string](tab, `Array.from(document.querySelectorAll("#`+table+` tbody tr")).map(r => r.cells[0].textContent + " " + r.cells[1].textContent).sort()`)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: %q, want %q", table, got, want)
		}
	}
	if got := browsertest.Eval[string](tab, `document.querySelector("#automated tbody tr td.range").textContent`); got != "0" {
		t.Errorf("bots in the range %q, want 0", got)
	}
	shoot(t, tab, "stats")

	// The table: the clicks, and the link's QR image from the edge.
	tab.Open(e.base + "/links")
	if got := tab.Text("tbody tr .clicks"); got != "2" {
		t.Errorf("the table shows %q clicks", got)
	}
	if w := browsertest.Eval[int](tab, `document.querySelector("tbody tr .qr-thumb img").naturalWidth`); w == 0 {
		t.Error("the QR thumbnail did not load from the edge")
	}
	shoot(t, tab, "links")

	// Edit the country rule: the edge follows the change.
	tab.Open(e.base + "/links/" + id + "/edit")
	tab.SetValue("#geo-url-0", dest+"/de-neu")
	if st := tab.ClickNavigate(".form-foot button[value=save]"); st != http.StatusOK || !strings.Contains(tab.Text(".notice-ok"), "Changes saved.") {
		t.Fatalf("edit: status %d: %s", st, tab.Text("main"))
	}
	visitor.SetUserAgent(uaWindowsChrome)
	visitor.SetHeaders(map[string]string{edgeCountryHeader: "DE"})
	waitFor(t, 5*time.Second, "the edge to follow the edited rule", func() bool {
		visitor.Open(short)
		return visitor.URL() == dest+"/de-neu"
	})

	// Delete it with the table's bulk delete: tick, confirm, gone.
	tab.Open(e.base + "/links")
	tab.Click("#pick-" + id)
	if st := tab.ClickNavigate("#bulk-delete"); st != http.StatusOK {
		t.Fatalf("bulk delete: status %d", st)
	}
	if got := tab.Text("main h1"); got != "Delete this link?" || !strings.Contains(tab.Text("#bulk-list"), strings.TrimPrefix(short, "http://")) {
		t.Fatalf("confirmation %q lists %q", got, tab.Text("#bulk-list"))
	}
	shoot(t, tab, "bulk-confirm")
	tab.ClickNavigate("main form button[type=submit]")
	if got := tab.Text(".notice-ok"); got != "1 link deleted." {
		t.Errorf("after the delete the notice says %q", got)
	}
	if got := tab.Text(".empty h2"); got != "No links yet" {
		t.Errorf("empty state %q", got)
	}
	waitFor(t, 5*time.Second, "the edge to answer 404 for the deleted link", func() bool {
		return edgeStatus(short) == http.StatusNotFound
	})
}

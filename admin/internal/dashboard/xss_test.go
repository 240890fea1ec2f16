package dashboard

import (
	"net/http"
	"net/url"
	"testing"

	"kurz/shared/browsertest"
)

// xssPayload would run a script, add elements or leave its attribute if
// any page put it into HTML unescaped.
const xssPayload = `"'><img src=x onerror="window.__xss=1"><script>window.__xss=2</script><svg onload="window.__xss=3">`

// xssURL is a destination the API accepts (no spaces) that would break out
// of an attribute if it were not escaped.
const xssURL = `https://example.com/?q="'><svg/onload=window.__xss=4>`

// expectInert fails when the page holds anything the payloads injected:
// a flag set by their scripts, or their elements.
func expectInert(t *testing.T, tab *browsertest.Tab, where string) {
	t.Helper()
	if ran := browsertest.Eval[bool](tab, `window.__xss !== undefined`); ran {
		t.Errorf("%s: an injected script ran", where)
	}
	if n := browsertest.Eval[int](tab, `document.querySelectorAll("img:not(td.qr-thumb > a > img), svg, script:not([src]), [onerror], [onload]").length`); n != 0 {
		t.Errorf("%s: %d injected elements", where, n)
	}
	// The link table's QR thumbnails are the only images a page has; each
	// must be exactly what the template writes.
	if odd := browsertest.Eval[[]string](tab, `[...document.querySelectorAll("td.qr-thumb > a > img")]
		.filter(i => !i.getAttribute("src").endsWith("/qr/100.svg") ||
			i.getAttributeNames().sort().join() !== "alt,height,loading,src,width")
		.map(i => i.outerHTML)`); len(odd) > 0 {
		t.Errorf("%s: images that are no QR thumbnail: %q", where, odd)
	}
}

// TestBrowserXSSInert: what people type is shown as text in every field
// and page that shows it: link texts in the table and the forms, a
// destination's query, the search box, and the sign-in and sign-up forms
// that show a refused value again.
func TestBrowserXSSInert(t *testing.T) {
	e := newEnv(t)
	e.user("ann")
	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)

	tab.Open(e.base + "/login")
	tab.SetValue("#f-login", xssPayload)
	tab.SetValue("#f-password", "whatever")
	tab.ClickNavigate("main form button[type=submit]")
	if got := tab.Attr("#f-login", "value"); got != xssPayload {
		t.Errorf("sign-in form shows the name as %q", got)
	}
	expectInert(t, tab, "sign-in")

	tab.Open(e.base + "/signup")
	for _, f := range []string{"#f-email", "#f-username"} {
		tab.SetValue(f, xssPayload)
	}
	tab.ClickNavigate("main form button[type=submit]")
	for _, f := range []string{"#f-email", "#f-username"} {
		if got := tab.Attr(f, "value"); got != xssPayload {
			t.Errorf("sign-up form shows %s as %q", f, got)
		}
	}
	expectInert(t, tab, "sign-up")

	e.signIn(tab, "ann")
	tab.Open(e.base + "/links/new")
	tab.SetValue("#f-url", xssURL)
	for _, f := range []string{"#f-metatitle", "#f-metadescription", "#f-description"} {
		tab.SetValue(f, xssPayload)
	}
	tab.SetValue("#f-custom", xssPayload) // refused: shown again as typed
	if st := tab.ClickNavigate("main form button[type=submit]"); st != http.StatusBadRequest {
		t.Fatalf("alias with markup: status %d", st)
	}
	if got := tab.Attr("#f-custom", "value"); got != xssPayload {
		t.Errorf("refused alias shown as %q", got)
	}
	expectInert(t, tab, "refused link form")
	tab.SetValue("#f-custom", "xss-test")
	if st := tab.ClickNavigate("main form button[type=submit]"); st != http.StatusOK {
		t.Fatalf("create: status %d: %s", st, tab.Text("main"))
	}
	if got := tab.Text("tbody .title"); got != xssPayload {
		t.Errorf("table shows the title as %q", got)
	}
	if got := tab.Text("tbody .dest a"); got != xssURL {
		t.Errorf("destination shown as %q", got)
	}
	if got := browsertest.Eval[string](tab, `decodeURIComponent(document.querySelector("tbody .dest a").href)`); got != xssURL {
		t.Errorf("destination link goes to %q", got)
	}
	expectInert(t, tab, "link table")

	tab.ClickNavigate("tbody a[href$='/edit']")
	for _, f := range []string{"#f-metatitle", "#f-metadescription", "#f-description"} {
		if got := browsertest.Eval[string](tab, `document.querySelector("`+f+`").value`); got != xssPayload {
			t.Errorf("edit form %s = %q", f, got)
		}
	}
	if got := tab.Attr("#f-url", "value"); got != xssURL {
		t.Errorf("edit form url = %q", got)
	}
	expectInert(t, tab, "edit form")
	tab.ClickNavigate("main a[href$='/links']") // cancel
	tab.ClickNavigate("tbody a[href$='/delete']")
	expectInert(t, tab, "delete page")

	tab.Open(e.base + "/links?q=" + url.QueryEscape(xssPayload))
	if got := tab.Attr("#q", "value"); got != xssPayload {
		t.Errorf("search box shows %q", got)
	}
	if got := tab.Text("#count"); got != "1 matching link" {
		t.Errorf("search for the markup finds %q", got)
	}
	expectInert(t, tab, "search")
	tab.Open(e.base + "/links?q=" + url.QueryEscape(xssPayload+"zz"))
	if got := tab.Text(".empty h2"); got != "No links match “"+xssPayload+"zz”" {
		t.Errorf("no-match heading %q", got)
	}
	expectInert(t, tab, "search without match")
}

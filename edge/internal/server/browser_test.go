package server

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kurz/shared/browsertest"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// The public pages of issue 13 as a person sees them: Debian's Chromium
// against a real edge listening on loopback. Screenshots of every state
// land in .run/test/screenshots/ (see shared/browsertest).

// browserEnv is newEnv behind a real HTTP listener on loopback; the
// default domain's base URL is that listener's address, which it returns.
func browserEnv(t *testing.T, opts ...envOption) (*env, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	e := newEnv(t, append(opts, func(c *Config) { c.BaseURL = base })...)
	hs := e.srv.NewHTTPServer()
	tl := &trackingListener{Listener: ln, conns: map[net.Conn]struct{}{}}
	go hs.Serve(CoarseDeadlines(tl, ConnReadTimeout, ConnWriteTimeout)) //nolint:errcheck // ends at Shutdown
	t.Cleanup(func() {
		// The browser outlives the test and keeps its connections alive;
		// Shutdown would wait for them until the read timeout.
		tl.closeAll()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.ShutdownWithContext(ctx); err != nil {
			t.Errorf("edge shutdown: %v", err)
		}
	})
	return e, base
}

// trackingListener remembers its connections so a test can cut them.
type trackingListener struct {
	net.Listener
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns[c] = struct{}{}
		l.mu.Unlock()
	}
	return c, err
}

func (l *trackingListener) closeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		c.Close()
	}
}

// htmlServer serves one HTML body at every path and records the
// Sec-Fetch-Dest of each request (how the browser loaded it).
type htmlServer struct {
	*httptest.Server
	mu    sync.Mutex
	dests []string
}

func newHTMLServer(t *testing.T, body string) *htmlServer {
	t.Helper()
	s := &htmlServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.ico" {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		s.dests = append(s.dests, r.Header.Get("Sec-Fetch-Dest"))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *htmlServer) fetchDests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.dests...)
}

// statsFixture fills the stats page of alias "pub": a long destination,
// long referrer host and five human clicks (what TestStatsPage checks in
// markup), plus a private link "priv" with a click of its own.
const longDest = "https://shop.example.com/collections/spring-sale-2026/items/a-rather-long-product-name-for-testing-wrapping" +
	"?utm_source=newsletter&utm_medium=email&utm_campaign=spring-sale-2026-launch-week&ref=abcdefghijklmnopqrstuvwxyz0123456789"

const longRef = "a-very-long-subdomain-name-that-keeps-going.news-portal-with-a-long-name.example"

func statsFixture(t *testing.T) (*env, string) {
	t.Helper()
	conn, _ := chtest.New(t)
	e, base := browserEnv(t, withStats(conn))
	pub := uint64(e.addLink(linkRow{Alias: "pub", URL: longDest, MetaTitle: "Spring sale <2026>"}))
	priv := uint64(e.addLink(linkRow{Alias: "priv", URL: "https://example.com/private", Private: true}))
	insertClicks(t, conn, []click.Row{
		humanClick(1, pub, 100, "DE", "Chrome", "Windows", "news.example"),
		humanClick(2, pub, 100, "DE", "Chrome", "Windows", "news.example"),
		humanClick(3, pub, 200, "DE", "Firefox", "Linux", ""),
		humanClick(4, pub, 300, "US", "Safari", "iOS", longRef),
		humanClick(5, pub, 400, "", "Chrome", "MacOS", "news.example"),
		humanClick(6, priv, 100, "FR", "Chrome", "Windows", ""),
	})
	return e, base
}

// TestBrowserStatsPage: {alias}+ of a public link renders, styled (the CSP
// lets the inline style through), with its numbers and top lists, and
// nothing overflows sideways on a desktop or a phone; a private link's
// stats page is the not-found page.
func TestBrowserStatsPage(t *testing.T) {
	_, base := statsFixture(t)
	tab := browsertest.NewTab(t)

	if st := tab.Open(base + "/pub+"); st != 200 {
		t.Fatalf("status %d", st)
	}
	for sel, want := range map[string]string{
		"h1": "Spring sale <2026>", "#clicks": "5", "#unique": "4",
		"main > p:first-of-type a": base + "/pub",
	} {
		if got := tab.Text(sel); got != want {
			t.Errorf("%s shows %q, want %q", sel, got, want)
		}
	}
	if got := tab.Attr("p.muted a", "href"); got != longDest {
		t.Errorf("destination link %q", got)
	}
	// What the top lists show, first row of each, as rendered (the
	// country names are capitalised by CSS).
	type list struct{ Heading, First string }
	lists := browsertest.Eval[[]list](tab, `[...document.querySelectorAll("h2")].map(h => {
		const t = h.nextElementSibling;
		return {Heading: h.innerText, First: t.tagName === "TABLE" ? t.rows[0].innerText.replace(/\s+/g, " ") : t.innerText};
	})`)
	want := []list{
		{"Top countries", "Germany 3 60.0%"}, {"Top referrers", "news.example 3 60.0%"},
		{"Top browsers", "Chrome 3 60.0%"}, {"Top operating systems", "Windows 2 40.0%"},
	}
	if fmt.Sprint(lists) != fmt.Sprint(want) {
		t.Errorf("top lists show %+v, want %+v", lists, want)
	}
	if bg := browsertest.Eval[string](tab, `getComputedStyle(document.querySelector("main")).backgroundColor`); bg != "rgb(255, 255, 255)" {
		t.Errorf("main background %q: the page's style did not apply", bg)
	}
	// The numbers line up from table to table, whatever the names' length.
	if lefts := browsertest.Eval[[]float64](tab, `[...document.querySelectorAll("table.top tr:first-child td:first-of-type")].map(td => td.getBoundingClientRect().left)`); len(lefts) != 4 || slices.Max(lefts) != slices.Min(lefts) {
		t.Errorf("the count columns start at %v", lefts)
	}
	expectNoSidewaysOverflow(t, tab)
	tab.Screenshot("public")

	tab.Viewport(375, 740)
	expectNoSidewaysOverflow(t, tab)
	if box := browsertest.Eval[[2]float64](tab, `(r => [r.left, innerWidth - r.right])(document.querySelector("main").getBoundingClientRect())`); box[0] < 4 || box[1] < 4 {
		t.Errorf("on a phone the box touches the screen's edges: %v px left and right", box)
	}
	tab.Screenshot("public-phone")

	if st := tab.Open(base + "/priv+"); st != 404 {
		t.Fatalf("private link: status %d, want 404", st)
	}
	if h := tab.Text("h1"); h != "Link not found" {
		t.Errorf("private link shows %q", h)
	}
	if body := tab.Text("body"); strings.Contains(body, "example.com/private") || strings.Contains(body, "Clicks") {
		t.Errorf("private link's page shows %q", body)
	}
	tab.Screenshot("private-404")
}

// expectNoSidewaysOverflow fails when the page or any element is wider
// than the viewport (a long URL or host that does not wrap).
func expectNoSidewaysOverflow(t *testing.T, tab *browsertest.Tab) {
	t.Helper()
	wide := browsertest.Eval[[]string](tab, `(() => {
		const w = document.documentElement.clientWidth, out = [];
		if (document.documentElement.scrollWidth > w) out.push("document " + document.documentElement.scrollWidth + " > " + w);
		for (const el of document.body.querySelectorAll("*")) {
			const r = el.getBoundingClientRect();
			if (r.right > w + 0.5 || el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === "visible" && el.clientWidth > 0)
				out.push(el.tagName + " " + (el.id || el.className) + ": " + el.innerText.slice(0, 40));
		}
		return out;
	})()`)
	if len(wide) > 0 {
		t.Errorf("wider than the %d px viewport: %q", browsertest.Eval[int](tab, `document.documentElement.clientWidth`), wide)
	}
}

// TestBrowserLinkQR: {alias}/qr images load in an <img> of another site
// (no header keeps them from being embedded) at the snapped size, and the
// SVG variant renders on its own.
func TestBrowserLinkQR(t *testing.T) {
	e, base := browserEnv(t)
	e.addLink(linkRow{Alias: "menu1", URL: "https://example.com/menu"})
	page := newHTMLServer(t, `<!doctype html><title>QR</title><body style="margin:8px">`+
		`<img id="default" src="`+base+`/menu1/qr">`+
		`<img id="png" src="`+base+`/menu1/qr/333">`+
		`<img id="svg" src="`+base+`/menu1/qr/500.svg">`+
		`<img id="small" src="`+base+`/menu1/qr/100.png"></body>`)
	tab := browsertest.NewTab(t)
	tab.Open(page.URL) // waits for the images
	for id, width := range map[string]int{"default": 300, "png": 350, "svg": 500, "small": 100} {
		got := browsertest.Eval[[2]int](tab, `(i => [i.naturalWidth, i.naturalHeight])(document.getElementById("`+id+`"))`)
		if got != [2]int{width, width} {
			t.Errorf("%s: the image is %dx%d, want %dx%d", id, got[0], got[1], width, width)
		}
	}
	tab.Screenshot("embedded")

	tab.Open(base + "/menu1/qr/200.svg")
	if got := browsertest.Eval[string](tab, `document.documentElement.localName + " " + document.documentElement.getBoundingClientRect().width`); got != "svg 200" {
		t.Errorf("the SVG opened directly renders as %q", got)
	}
	tab.Screenshot("svg")
}

// hangingFrameServer is a destination that never answers a request made
// for an iframe (Sec-Fetch-Dest: iframe) and answers any other with a
// page: a site too slow to frame, which the browser can still open.
type hangingFrameServer struct {
	ln      net.Listener
	mu      sync.Mutex
	hung    int
	served  int
	release chan struct{}
}

func newHangingFrameServer(t *testing.T) *hangingFrameServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &hangingFrameServer{ln: ln, release: make(chan struct{})}
	t.Cleanup(func() { close(s.release); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.handle(c)
		}
	}()
	return s
}

func (s *hangingFrameServer) url() string { return "http://" + s.ln.Addr().String() + "/slow" }

func (s *hangingFrameServer) handle(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		tp := textproto.NewReader(r)
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		h, err := tp.ReadMIMEHeader()
		if err != nil {
			return
		}
		if !strings.HasPrefix(line, "GET /slow ") {
			fmt.Fprint(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n") // the favicon
			continue
		}
		s.mu.Lock()
		if h.Get("Sec-Fetch-Dest") == "iframe" {
			s.hung++
			s.mu.Unlock()
			<-s.release // never answers while the test runs
			return
		}
		s.served++
		s.mu.Unlock()
		body := `<!doctype html><title>Slow site</title><h1>Slow site, opened directly</h1>`
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	}
}

func (s *hangingFrameServer) counts() (hung, served int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hung, s.served
}

// frameTimeout is assets/frame.js's wait for a frame that never loads.
const frameTimeout = 10 * time.Second

// TestBrowserFrame: a frame link shows its destination in the frame and
// stays there; when the destination never answers the frame, the fallback
// script opens it top-level after its timeout. Both run at once, so the
// test costs one timeout.
func TestBrowserFrame(t *testing.T) {
	e, base := browserEnv(t)
	dest := newHTMLServer(t, `<!doctype html><title>Destination</title><h1 id="dest">The destination page</h1>`)
	slow := newHangingFrameServer(t)
	e.addLink(linkRow{Alias: "framed", URL: dest.URL + "/page", Type: "frame", MetaTitle: "Framed"})
	e.addLink(linkRow{Alias: "slowframe", URL: slow.url(), Type: "frame", MetaTitle: "Slow"})

	t.Run("destination answers", func(t *testing.T) {
		t.Parallel()
		tab := browsertest.NewTab(t)
		if st := tab.Open(base + "/framed?v=2"); st != 200 {
			t.Fatalf("status %d", st)
		}
		destURL := dest.URL + "/page?v=2"
		if got := tab.FrameText(destURL, "#dest"); got != "The destination page" {
			t.Fatalf("the frame shows %q", got)
		}
		if got := tab.Text(".bar a"); got != "Open the page directly" {
			t.Errorf("bar shows %q", got)
		}
		if h := browsertest.Eval[float64](tab, `document.querySelector("iframe.dest").getBoundingClientRect().height`); h < 600 {
			t.Errorf("the frame is %.0f px high in a 768 px window", h)
		}
		// A destination without a background of its own shows white, as
		// it would on its own, not the bar's grey through the frame.
		if bg := browsertest.Eval[string](tab, `getComputedStyle(document.querySelector("iframe.dest")).backgroundColor`); bg != "rgb(255, 255, 255)" {
			t.Errorf("frame background %q", bg)
		}
		tab.Screenshot("framed")
		// Past the fallback's timeout the page is still the frame.
		time.Sleep(frameTimeout + time.Second)
		if u := tab.URL(); u != base+"/framed?v=2" {
			t.Fatalf("a loaded frame was left for %s", u)
		}
		if got := tab.FrameURLs(); len(got) != 1 || got[0] != destURL {
			t.Fatalf("frames %q", got)
		}
		if got := dest.fetchDests(); len(got) != 1 || got[0] != "iframe" {
			t.Errorf("the destination was fetched as %q, want once, as an iframe", got)
		}
	})
	t.Run("destination never answers", func(t *testing.T) {
		t.Parallel()
		tab := browsertest.NewTab(t)
		start := time.Now()
		tab.Start(base + "/slowframe") // its load event waits for the frame
		tab.WaitVisible(".bar a")
		tab.Screenshot("waiting")
		tab.WaitURL(slow.url(), frameTimeout+5*time.Second)
		waited := time.Since(start)
		if waited < frameTimeout-2*time.Second {
			t.Errorf("left the frame after %v, before the %v timeout", waited, frameTimeout)
		}
		if got := tab.Text("h1"); got != "Slow site, opened directly" {
			t.Errorf("page shows %q", got)
		}
		if hung, served := slow.counts(); hung != 1 || served != 1 {
			t.Errorf("destination: %d frame requests (hung), %d top-level, want 1 and 1", hung, served)
		}
		tab.Screenshot("opened-directly")
	})
}

// TestBrowserFrameRefused: a frame link whose destination refuses frames
// takes the browser straight to the destination.
func TestBrowserFrameRefused(t *testing.T) {
	e, base := browserEnv(t)
	dest := newHTMLServer(t, `<!doctype html><title>Destination</title><h1>Refuses frames</h1>`)
	id := e.addLink(linkRow{Alias: "refusing", URL: dest.URL + "/page", Type: "frame"})
	e.exec(`UPDATE links SET frame_refused = true WHERE id = $1`, id)
	tab := browsertest.NewTab(t)
	if st := tab.Open(base + "/refusing?v=1"); st != 200 {
		t.Fatalf("status %d", st)
	}
	if u := tab.URL(); u != dest.URL+"/page?v=1" {
		t.Fatalf("the browser is on %s, want the destination", u)
	}
	if got := dest.fetchDests(); len(got) != 1 || got[0] != "document" {
		t.Errorf("the destination was fetched as %q, want once, top-level", got)
	}
	tab.Screenshot("destination")
}

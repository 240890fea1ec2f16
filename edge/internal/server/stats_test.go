package server

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/edge/internal/clicks"
	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
	"kurz/shared/link"
)

// withStats reads the stats pages' numbers from conn, as edge/serve.go does.
func withStats(conn driver.Conn) envOption {
	return func(c *Config) {
		c.LinkStats = func(ctx context.Context, id int64) (*chstore.Summary, error) {
			return chstore.ReadSummary(ctx, conn, click.KindLink, id)
		}
	}
}

func humanClick(id, linkID, visitor uint64, country, browser, os, ref string) click.Row {
	cat := click.RefDirect
	if ref != "" {
		cat = click.RefOther
	}
	return click.Row{ClickID: id, UnixNano: time.Now().UnixNano(), Kind: click.KindLink, Class: click.ClassHuman,
		LinkID: linkID, OwnerID: 1, Visitor: visitor, Country: country, Browser: browser, OS: os,
		Device: "desktop", RefHost: ref, RefCategory: cat}
}

func insertClicks(t *testing.T, conn driver.Conn, rows []click.Row) {
	t.Helper()
	var b click.Block
	for i := range rows {
		b.Add(&rows[i])
	}
	if err := chstore.InsertBlock(context.Background(), conn, &b); err != nil {
		t.Fatal(err)
	}
}

// row is the markup of one top-N row on the stats page.
func row(name string, n int, pct string) string {
	return fmt.Sprintf(`<tr><th scope="row">%s</th><td>%d</td><td>%s</td></tr>`, name, n, pct)
}

// TestStatsPage: {alias}+ shows a public link's human clicks, unique
// visitors and top lists as ClickHouse has them, and nothing at all for
// private or unknown links.
func TestStatsPage(t *testing.T) {
	conn, _ := chtest.New(t)
	e := newEnv(t, withStats(conn))
	pub := e.addLink(linkRow{Alias: "pub", URL: "https://example.com/spring?utm_source=x&a=<b>", MetaTitle: `Spring <script>alert(1)</script>`})
	priv := e.addLink(linkRow{Alias: "priv", URL: "https://example.com/private", Private: true})
	locked := e.addLink(linkRow{Alias: "locked", URL: "https://example.com/hidden-destination", Password: "pw"})
	e.addLink(linkRow{Alias: "expired", URL: "https://example.com/old", Expires: ptr(time.Now().Add(-time.Hour))})
	e.addLink(linkRow{Alias: "fresh", URL: "https://example.com/fresh"})

	u := uint64(pub)
	bot := humanClick(90, u, 900, "US", "Other", "Other", "")
	bot.Class = click.ClassBot
	prefetch := humanClick(91, u, 901, "US", "Chrome", "Windows", "")
	prefetch.Class = click.ClassPrefetch
	insertClicks(t, conn, []click.Row{
		humanClick(1, u, 100, "DE", "Chrome", "Windows", "news.example"),
		humanClick(2, u, 100, "DE", "Chrome", "Windows", "news.example"),
		humanClick(3, u, 200, "DE", "Firefox", "Linux", ""),
		humanClick(4, u, 300, "US", "Safari", "iOS", "<img src=x onerror=alert(1)>.example"),
		humanClick(5, u, 400, "", "Chrome", "MacOS", "news.example"),
		humanClick(6, uint64(priv), 100, "FR", "Chrome", "Windows", ""),
		humanClick(7, uint64(locked), 100, "FR", "Edge", "Windows", ""),
		bot, prefetch,
	})

	t.Run("public link", func(t *testing.T) {
		r := e.do(req{path: "/pub+"})
		expect(t, r, 200, "")
		expectBody(t, r,
			`<dd id="clicks">5</dd>`, `<dd id="unique">4</dd>`,
			"<h1>Spring &lt;script&gt;alert(1)&lt;/script&gt;</h1>",
			`<a href="`+testBase+`/pub" rel="nofollow">`+testBase+`/pub</a>`,
			`Destination: <a href="https://example.com/spring?utm_source=x&amp;a=%3cb%3e"`,
			`<table class="top cc">`+"\n"+row("germany", 3, "60.0%")+"\n"+row("united states", 1, "20.0%")+"\n"+row("unknown", 1, "20.0%"),
			row("news.example", 3, "60.0%"), row("direct", 1, "20.0%"),
			row("&lt;img src=x onerror=alert(1)&gt;.example", 1, "20.0%"),
			row("Chrome", 3, "60.0%"), row("Firefox", 1, "20.0%"), row("Safari", 1, "20.0%"),
			row("Windows", 2, "40.0%"), row("Linux", 1, "20.0%"), row("MacOS", 1, "20.0%"), row("iOS", 1, "20.0%"),
		)
		body := string(r.Body())
		if strings.Contains(body, "<script>") || strings.Contains(body, "<img") || strings.Contains(body, "Other") {
			t.Fatalf("unescaped user data or non-human clicks on the page:\n%s", body)
		}
		csp := string(r.Header.Peek("Content-Security-Policy"))
		if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
			t.Fatalf("CSP %q", csp)
		}
		if cc := string(r.Header.Peek("Cache-Control")); cc != "no-store" {
			t.Fatalf("Cache-Control %q", cc)
		}
	})
	t.Run("never visited", func(t *testing.T) {
		r := e.do(req{path: "/fresh+"})
		expect(t, r, 200, "")
		expectBody(t, r, `<dd id="clicks">0</dd>`, `<dd id="unique">0</dd>`, "No clicks yet.")
	})
	t.Run("password link hides its destination", func(t *testing.T) {
		r := e.do(req{path: "/locked+"})
		expect(t, r, 200, "")
		expectBody(t, r, `<dd id="clicks">1</dd>`, row("Edge", 1, "100.0%"))
		if strings.Contains(string(r.Body()), "hidden-destination") {
			t.Fatal("the destination of a password-protected link is shown")
		}
	})
	t.Run("private and unknown look the same", func(t *testing.T) {
		unknown := e.do(req{path: "/nope+"})
		expect(t, unknown, 404, "")
		private := e.do(req{path: "/priv+"})
		expect(t, private, 404, "")
		if string(private.Body()) != string(unknown.Body()) {
			t.Fatalf("a private link's 404 differs from an unknown one's:\n%s\n---\n%s", private.Body(), unknown.Body())
		}
		if strings.Contains(string(private.Body()), "example.com/private") {
			t.Fatal("private link leaked")
		}
	})
	t.Run("branded domain", func(t *testing.T) {
		e.addDomain("go.brand.test", "", "https://brand.test/404")
		bid := e.addLink(linkRow{Host: "go.brand.test", Alias: "pub", URL: "https://brand.test/page"})
		insertClicks(t, conn, []click.Row{humanClick(50, uint64(bid), 1, "CH", "Chrome", "Windows", "")})
		r := e.do(req{host: "go.brand.test", path: "/pub+"})
		expect(t, r, 200, "")
		expectBody(t, r, `<dd id="clicks">1</dd>`, "http://go.brand.test/pub", row("switzerland", 1, "100.0%"))
		// Unknown on a branded domain: the 404 page, not its redirect404.
		expect(t, e.do(req{host: "go.brand.test", path: "/nope+"}), 404, "")
	})
	t.Run("methods and expiry", func(t *testing.T) {
		r := e.do(req{method: "HEAD", path: "/pub+"})
		expect(t, r, 200, "")
		if len(r.Body()) != 0 {
			t.Fatal("HEAD has a body")
		}
		expect(t, e.do(req{method: "POST", path: "/pub+"}), 405, "")
		expect(t, e.do(req{path: "/expired+"}), 410, "")
		for _, p := range []string{"/pub++", "/+", "/pub+/x", "/pub%2B%2B"} {
			expect(t, e.do(req{path: p}), 404, "")
		}
	})
	if n := len(e.rec.all()); n != 0 {
		t.Fatalf("%d clicks counted for stats pages", n)
	}
}

// TestStatsPageThroughPipeline: visits served by the edge, through the real
// click pipeline into ClickHouse, are what the page shows; only humans
// count.
func TestStatsPageThroughPipeline(t *testing.T) {
	conn, _ := chtest.New(t)
	enr, err := click.NewEnricher(click.EnricherConfig{Secret: []byte("s")})
	if err != nil {
		t.Fatal(err)
	}
	p, err := clicks.New(clicks.Config{Conn: conn, Enricher: enr, SpoolDir: filepath.Join(t.TempDir(), "spool"),
		FlushInterval: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(t0()) }) //nolint:errcheck
	e := newEnv(t, withStats(conn), func(c *Config) { c.Push = p.TryPush; c.CountryHeader = "X-Kurz-Country" })
	e.addLink(linkRow{Alias: "shop", URL: "https://example.com/shop"})

	visits := []req{
		{peer: "198.51.100.1", ua: windowsUA, headers: map[string]string{"X-Kurz-Country": "DE", "Referer": "https://www.google.com/search?q=x"}},
		{peer: "198.51.100.1", ua: windowsUA, headers: map[string]string{"X-Kurz-Country": "DE"}},
		{peer: "198.51.100.2", ua: iphoneUA, headers: map[string]string{"X-Kurz-Country": "FR", "Referer": "https://t.co/abc"}},
		{peer: "198.51.100.3", ua: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}, // bot
		{method: "HEAD", peer: "198.51.100.4", ua: macUA},                                                      // prefetch
	}
	for _, v := range visits {
		v.path = "/shop"
		expect(t, e.do(v), 302, "https://example.com/shop")
	}
	// Wait for the pipeline, not through the page: it would cache the
	// numbers it saw first for statsTTL. Wait for the acknowledged insert,
	// not for the numbers: the views of one INSERT write one after the
	// other, so click_totals can show all five clicks while the visitors'
	// view has not written yet (the page then showed 0 unique visitors,
	// about one run in six).
	waitFor(t, 10*time.Second, "clicks in ClickHouse", func() bool { return p.Stats().Inserted == 5 })
	r := e.do(req{path: "/shop+"})
	expect(t, r, 200, "")
	expectBody(t, r, `<dd id="clicks">3</dd>`, `<dd id="unique">2</dd>`,
		row("germany", 2, "66.7%"), row("france", 1, "33.3%"),
		row("google.com", 1, "33.3%"), row("t.co", 1, "33.3%"), row("direct", 1, "33.3%"),
		row("Windows", 2, "66.7%"), row("iOS", 1, "33.3%"))
}

// TestStatsPageShieldsClickHouse: misses of one link share one read, the
// result is cached, and a failed read is a 503 page (never numbers),
// remembered briefly so an outage is not hammered.
func TestStatsPageShieldsClickHouse(t *testing.T) {
	var calls atomic.Int64
	var failing atomic.Bool
	release := make(chan struct{})
	read := func(ctx context.Context, id int64) (*chstore.Summary, error) {
		calls.Add(1)
		<-release
		if failing.Load() {
			return nil, fmt.Errorf("read click totals: %w: connection refused", link.ErrUnavailable)
		}
		return &chstore.Summary{Clicks: 42, UniqueClicks: 7}, nil
	}
	e := newEnv(t, func(c *Config) { c.LinkStats = read })
	e.addLink(linkRow{Alias: "hot", URL: "https://example.com/"})
	e.addLink(linkRow{Alias: "down", URL: "https://example.com/"})

	var wg sync.WaitGroup
	statuses := make(chan int, 20)
	for range 20 {
		wg.Go(func() { statuses <- e.do(req{path: "/hot+"}).StatusCode() })
	}
	time.Sleep(100 * time.Millisecond) // let them all queue on the one read
	close(release)
	wg.Wait()
	close(statuses)
	for st := range statuses {
		if st != 200 {
			t.Fatalf("status %d", st)
		}
	}
	for range 5 {
		expectBody(t, e.do(req{path: "/hot+"}), `<dd id="clicks">42</dd>`)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d ClickHouse reads for 25 views of one link, want 1", n)
	}

	failing.Store(true)
	for range 5 {
		r := e.do(req{path: "/down+"})
		expect(t, r, 503, "")
		expectBody(t, r, "Statistics temporarily unavailable")
		if strings.Contains(string(r.Body()), "<dd") {
			t.Fatal("numbers shown while ClickHouse is down")
		}
		if ra := string(r.Header.Peek("Retry-After")); ra != "30" {
			t.Fatalf("Retry-After %q", ra)
		}
	}
	if n := calls.Load(); n != 2 {
		t.Fatalf("%d reads, want 2: a failure is remembered for a few seconds", n)
	}
}

// Without a stats reader (no ClickHouse wired) the page is a 503.
func TestStatsPageWithoutReader(t *testing.T) {
	e := newEnv(t)
	e.addLink(linkRow{Alias: "pub", URL: "https://example.com/"})
	r := e.do(req{path: "/pub+"})
	expect(t, r, 503, "")
	expectBody(t, r, "Statistics temporarily unavailable")
}

// TestStatsPageTurnsPrivate: the public check is made against the link
// cache, which the change listener keeps current, so a link turned private
// stops showing its stats at once, whatever the stats cache holds.
func TestStatsPageTurnsPrivate(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.LinkStats = func(context.Context, int64) (*chstore.Summary, error) { return &chstore.Summary{Clicks: 3}, nil }
	})
	startListener(t, e)
	id := e.addLink(linkRow{Alias: "flip", URL: "https://example.com/"})
	e.known(t, "", "flip")
	expectBody(t, e.do(req{path: "/flip+"}), `<dd id="clicks">3</dd>`)
	e.exec(`UPDATE links SET status = 'private' WHERE id = $1`, id)
	waitFor(t, 5*time.Second, "stats page gone", func() bool { return e.do(req{path: "/flip+"}).StatusCode() == 404 })
	e.exec(`UPDATE links SET status = 'public' WHERE id = $1`, id)
	waitFor(t, 5*time.Second, "stats page back", func() bool { return e.do(req{path: "/flip+"}).StatusCode() == 200 })
}

package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"kurz/edge/internal/listen"
	"kurz/shared/pgstore/pgtest"
)

// startListener runs the change listener of e until the test ends.
func startListener(t testing.TB, e *env) *listen.Listener {
	t.Helper()
	l := listen.New(e.store, e.cat, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); l.Run(ctx) }() //nolint:errcheck
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, 5*time.Second, "listener up", func() bool { return l.Up() })
	return l
}

func waitFor(t testing.TB, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// known waits until the catalog finds the link (host, alias). With the
// listener running, the edge's existence sets know only what the notices
// told them: a link the test just wrote is served once its notice has
// arrived, a few hundred microseconds later.
func (e *env) known(t *testing.T, host, alias string) {
	t.Helper()
	waitFor(t, 5*time.Second, "link "+host+"/"+alias+" known", func() bool {
		l, err := e.cat.LoadLink(t0(), host, alias)
		return err == nil && !l.Missing()
	})
}

// eventually asserts that /path redirects to want within 1 s.
func (e *env) eventually(t *testing.T, host, path string, status int, want string) {
	t.Helper()
	waitFor(t, 5*time.Second, path+" -> "+want, func() bool {
		r := e.do(req{host: host, path: path})
		return r.StatusCode() == status && location(r) == want
	})
}

// eventuallyBody asserts that /path answers 200 with want in its body
// within 1 s.
func (e *env) eventuallyBody(t *testing.T, path, want string) {
	t.Helper()
	waitFor(t, 5*time.Second, path+" shows "+want, func() bool {
		r := e.do(req{path: path})
		return r.StatusCode() == 200 && strings.Contains(string(r.Body()), want)
	})
}

func TestInvalidation(t *testing.T) {
	e := newEnv(t)
	// Added before the listener starts, so that no notification of its
	// own creation can drop it from the cache later (the pixel subtest
	// checks that it stays cached).
	e.addLink(linkRow{Alias: "bystander", URL: "https://example.com/by"})
	startListener(t, e)
	id := e.addLink(linkRow{Alias: "mv", URL: "https://example.com/v1"})
	e.known(t, "", "mv")
	expect(t, e.do(req{path: "/mv"}), 302, "https://example.com/v1")

	t.Run("update", func(t *testing.T) {
		e.exec(`UPDATE links SET long_url = 'https://example.com/v2' WHERE id = $1`, id)
		e.eventually(t, "", "/mv", 302, "https://example.com/v2")
	})
	t.Run("rename drops the old alias", func(t *testing.T) {
		e.exec(`UPDATE links SET alias = 'moved' WHERE id = $1`, id)
		e.eventually(t, "", "/mv", 404, "")
		e.eventually(t, "", "/moved", 302, "https://example.com/v2")
	})
	t.Run("negative entry cleared by create", func(t *testing.T) {
		expect(t, e.do(req{path: "/later"}), 404, "")
		e.addLink(linkRow{Alias: "later", URL: "https://example.com/later"})
		e.eventually(t, "", "/later", 302, "https://example.com/later")
	})
	t.Run("delete", func(t *testing.T) {
		e.exec(`DELETE FROM links WHERE alias = 'later'`)
		e.eventually(t, "", "/later", 404, "")
	})
	t.Run("domain change", func(t *testing.T) {
		e.exec(`INSERT INTO domains (user_id, host, domain, redirect_404) VALUES ($1, 'new.brand.test', 'https://new.brand.test', 'https://brand.test/404')`, e.user)
		e.eventually(t, "new.brand.test", "/unknown", 302, "https://brand.test/404")
		e.exec(`UPDATE domains SET redirect_404 = 'https://brand.test/other' WHERE host = 'new.brand.test'`)
		e.eventually(t, "new.brand.test", "/unknown", 302, "https://brand.test/other")
	})
	t.Run("pixel and overlay edits drop only the links using them", func(t *testing.T) {
		px := e.id(`INSERT INTO pixels (user_id, type, name, tag) VALUES ($1, 'socialnetworkpixel', 'fb', 'TAG-ONE') RETURNING id`, e.user)
		ov := e.id(`INSERT INTO overlays (user_id, name, message) VALUES ($1, 'o', 'MSG-ONE') RETURNING id`, e.user)
		withPx := e.addLink(linkRow{Alias: "withpx", URL: "https://example.com/px"})
		e.exec(`INSERT INTO link_pixels (link_id, pixel_id) VALUES ($1, $2)`, withPx, px)
		e.addLink(linkRow{Alias: "withov", URL: "https://example.com/ov", Type: "overlay", OverlayID: &ov})
		e.eventuallyBody(t, "/withpx", "TAG-ONE")
		e.eventuallyBody(t, "/withov", "MSG-ONE")
		expect(t, e.do(req{path: "/bystander"}), 302, "https://example.com/by")
		e.cat.Wait()
		cached := func() bool { _, ok := e.cat.Link("", []byte("bystander")); return ok }
		if !cached() {
			t.Fatal("bystander not cached")
		}
		// New rows touch no cached link.
		e.exec(`INSERT INTO pixels (user_id, type, name, tag) VALUES ($1, 'analyticspixel', 'ga', 'G-NEW')`, e.user)
		e.exec(`UPDATE pixels SET tag = 'TAG-TWO' WHERE id = $1`, px)
		e.exec(`UPDATE overlays SET message = 'MSG-TWO' WHERE id = $1`, ov)
		e.eventuallyBody(t, "/withpx", "TAG-TWO")
		e.eventuallyBody(t, "/withov", "MSG-TWO")
		if !cached() {
			t.Fatal("an edit of a pixel or overlay the link does not use dropped it from the cache")
		}
	})
	t.Run("targeting change", func(t *testing.T) {
		e.exec(`UPDATE links SET device_targets = '[{"device":"linux","link":"https://example.com/linux"}]' WHERE id = $1`, id)
		e.eventually(t, "", "/moved", 302, "https://example.com/linux")
	})
}

func TestListenerReconnect(t *testing.T) {
	e := newEnv(t)
	l := startListener(t, e)
	id := e.addLink(linkRow{Alias: "re", URL: "https://example.com/1"})
	e.known(t, "", "re")
	expect(t, e.do(req{path: "/re"}), 302, "https://example.com/1")

	var n int
	err := pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE query LIKE 'LISTEN%' AND datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n)
	if err != nil || n != 1 {
		t.Fatalf("terminated %d listeners: %v", n, err)
	}
	waitFor(t, 3*time.Second, "reconnect", func() bool { return l.Connects() >= 2 && l.Up() })
	e.exec(`UPDATE links SET long_url = 'https://example.com/2' WHERE id = $1`, id)
	e.eventually(t, "", "/re", 302, "https://example.com/2")
}

// proxy is a TCP relay in front of PostgreSQL that the test can cut, to
// make the database unreachable for one server only.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	down   bool
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	go p.accept()
	t.Cleanup(p.cut)
	return p
}

func (p *proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			c.Close()
			continue
		}
		u, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns = append(p.conns, c, u)
		p.mu.Unlock()
		go func() { io.Copy(u, c); u.Close() }() //nolint:errcheck
		go func() { io.Copy(c, u); c.Close() }() //nolint:errcheck
	}
}

// cut closes every relayed connection and refuses new ones.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	p.ln.Close()
	for _, c := range p.conns {
		c.Close()
	}
}

func TestPostgresDown(t *testing.T) {
	store, dsn := pgtest.Store(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, u.Host)
	u.Host = p.ln.Addr().String()
	q := u.Query()
	q.Set("connect_timeout", "1")
	u.RawQuery = q.Encode()
	proxied := pgtest.Open(t, u.String())

	// The links are written through the direct store; the edge reads through the proxy.
	direct := newEnvOn(t, store, dsn)
	direct.addLink(linkRow{Alias: "cached", URL: "https://example.com/cached"})
	direct.addLink(linkRow{Alias: "cold", URL: "https://example.com/cold"})
	e := newEnvOn(t, proxied, dsn)
	expect(t, e.do(req{path: "/cached"}), 302, "https://example.com/cached")
	e.cat.Wait()

	p.cut()
	expect(t, e.do(req{path: "/cached"}), 302, "https://example.com/cached")
	start := time.Now()
	r := e.do(req{path: "/cold"})
	expect(t, r, 503, "")
	expectBody(t, r, "<html")
	if r.Header.Peek("Retry-After") == nil {
		t.Fatal("503 without Retry-After")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("503 took %v", d)
	}
	// Unavailability is not cached as "unknown".
	if _, ok := e.cat.Link("", []byte("cold")); ok {
		t.Fatal("a failed load was cached")
	}
	rr := e.do(req{path: "/readyz"})
	expect(t, rr, 503, "")
}

package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// hold takes all of c until the test releases it or ends.
func hold(t *testing.T, c *workCap) (release func()) {
	t.Helper()
	release, err := c.acquire(context.Background(), c.size, 0)
	if err != nil {
		t.Fatalf("hold %s: %v", c.name, err)
	}
	t.Cleanup(release)
	return release
}

// Memory-heavy work waits for room under its server-wide cap; when none
// frees up soon the request is a quick 503 and nothing is written. Once
// the cap has room the same requests succeed.
func TestWorkCapsFull(t *testing.T) {
	e := newEnv(t, registering("open"))
	e.srv.caps.wait = 50 * time.Millisecond
	_, key := e.user("alice")
	type req struct {
		method, path, key string
		body              any
		ok                int
	}
	busy := func(t *testing.T, reqs ...req) {
		t.Helper()
		for _, q := range reqs {
			start := time.Now()
			e.do(q.method, q.path, q.key, q.body).wantStatus(t, http.StatusServiceUnavailable).wantMessage(t, "busy")
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("%s %s: the 503 took %v", q.method, q.path, d)
			}
		}
	}
	done := func(t *testing.T, reqs ...req) {
		t.Helper()
		for _, q := range reqs {
			e.do(q.method, q.path, q.key, q.body).wantStatus(t, q.ok)
		}
	}

	t.Run("password hashing", func(t *testing.T) {
		hashing := []req{
			{"POST", "/api/url/add", key, map[string]any{"url": "https://example.com/pw", "password": "s3cret!"}, 200},
			{"PUT", "/api/account/update", key, map[string]any{"password": "a long passphrase"}, 200},
			{"POST", "/api/register", "", signup("bob"), 201},
		}
		release := hold(t, e.srv.caps.hash)
		busy(t, hashing...)
		if n := linkCount(t, e); n != 0 {
			t.Fatalf("%d links written by refused requests", n)
		}
		done(t, req{"POST", "/api/url/add", key, map[string]any{"url": "https://example.com/nopw"}, 200})
		release()
		done(t, hashing...)
	})
	t.Run("large bodies", func(t *testing.T) {
		big := req{"POST", "/api/url/add", key, map[string]any{"url": "https://example.com/big", "pad": strings.Repeat("x", 200<<10)}, 200}
		release := hold(t, e.srv.caps.body)
		busy(t, big)
		done(t, req{"POST", "/api/url/add", key, map[string]any{"url": "https://example.com/small"}, 200})
		release()
		done(t, big)
	})
	t.Run("logo decoding", func(t *testing.T) {
		logo := req{"POST", "/api/qr/add", key, map[string]any{"type": "text", "data": "hi",
			"logo": qrDataURI("image/png", qrFixture(t, "qr_logo.png"))}, 200}
		release := hold(t, e.srv.caps.logo)
		busy(t, logo)
		if n := e.qrCount(t); n != 0 {
			t.Fatalf("%d QR codes written by refused requests", n)
		}
		release()
		done(t, logo)
	})
}

// The caps are sized from the memory budget, never below one operation.
func TestWorkCapSizes(t *testing.T) {
	for _, budget := range []int64{1 << 20, 256 << 20, 4 << 30} {
		c := newWorkCaps(budget)
		for _, w := range []struct {
			c    *workCap
			cost int64
		}{{c.hash, hashCost}, {c.logo, logoCost}, {c.body, bodyCost(MaxBody)}} {
			if w.c.size < w.cost {
				t.Errorf("budget %d: %s cap %d holds no operation of %d", budget, w.c.name, w.c.size, w.cost)
			}
		}
	}
	c := newWorkCaps(512 << 20)
	if n := c.hash.size / hashCost; n < 2 || n > 64 {
		t.Errorf("512 MiB budget: %d parallel hashes", n)
	}
}

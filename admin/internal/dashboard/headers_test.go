package dashboard

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

var (
	scriptRE = regexp.MustCompile(`<script nonce="([^"]+)" src="(/assets/[0-9a-f]{12}/app\.js)" defer></script>`)
	styleRE  = regexp.MustCompile(`<link rel="stylesheet" href="(/assets/[0-9a-f]{12}/app\.css)">`)
)

// TestPageHeaders: every page has a strict CSP whose only script source is
// its own fresh nonce, is not cached or framed, and sends no Referer; its
// assets have versioned URLs cached immutable, and an old version is a 404
// rather than other bytes under a name cached for a year.
func TestPageHeaders(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	var nonces []string
	for range 2 {
		p := c.get("/login")
		m := scriptRE.FindStringSubmatch(p.body)
		if m == nil {
			t.Fatalf("no nonce-carrying script in the page")
		}
		nonces = append(nonces, m[1])
		csp := p.header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'nonce-" + m[1] + "'", "style-src 'self'",
			"form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("CSP %q lacks %q", csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "http") {
			t.Errorf("CSP %q allows inline code or another site", csp)
		}
		for k, v := range map[string]string{"Cache-Control": "no-store", "X-Frame-Options": "DENY",
			"Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"} {
			if got := p.header.Get(k); got != v {
				t.Errorf("%s: %q, want %q", k, got, v)
			}
		}
		if strings.Contains(p.body, "<script>") || strings.Contains(p.body, " style=") || strings.Contains(p.body, "//cdn") {
			t.Error("the page has inline script or style, or names a CDN")
		}
	}
	if nonces[0] == nonces[1] {
		t.Error("two pages share a nonce")
	}

	p := c.get("/login")
	for _, asset := range []struct {
		path, ctype string
	}{{scriptRE.FindStringSubmatch(p.body)[2], "text/javascript"}, {styleRE.FindStringSubmatch(p.body)[1], "text/css"}} {
		r := c.get(asset.path)
		if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), asset.ctype) ||
			r.header.Get("Cache-Control") != "public, max-age=31536000, immutable" || len(r.body) < 100 {
			t.Errorf("%s: status %d, type %q, cache %q, %d bytes", asset.path, r.status,
				r.header.Get("Content-Type"), r.header.Get("Cache-Control"), len(r.body))
		}
		old := regexp.MustCompile(`/assets/[0-9a-f]{12}/`).ReplaceAllString(asset.path, "/assets/000000000000/")
		if r := c.get(old); r.status != http.StatusNotFound || r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: status %d, cache %q", old, r.status, r.header.Get("Cache-Control"))
		}
	}
	// The API keeps its JSON answers under /api; the dashboard has the rest.
	for _, path := range []string{"/api/urls", "/api"} {
		r := c.get(path)
		if ct := r.header.Get("Content-Type"); r.status < 400 || !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s: %d %s, want the API's JSON error", path, r.status, ct)
		}
	}
	if r := c.get("/nothing"); r.status != http.StatusNotFound || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Errorf("/nothing: %d %s", r.status, r.header.Get("Content-Type"))
	}
	if r := c.get("/"); r.status != http.StatusSeeOther || r.header.Get("Location") != "/login" {
		t.Errorf("/ signed out: %d %s", r.status, r.header.Get("Location"))
	}
}

// TestDashboardAlone: the KURZ_DASHBOARD_ADDR handler serves the pages and
// nothing of the API.
func TestDashboardAlone(t *testing.T) {
	e := newEnv(t)
	h := e.dash.Handler()
	for path, want := range map[string]int{"/login": http.StatusOK, "/api/urls": http.StatusNotFound} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != want || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			t.Errorf("%s: status %d (%s), want %d", path, rec.Code, rec.Header().Get("Content-Type"), want)
		}
	}
}

package dashboard

import (
	"context"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"kurz/shared/browsertest"
	"kurz/shared/config"
	"kurz/shared/pgstore/pgtest"
)

// TestBrowserSessionExpiry: a session past its expiry signs nobody in; the
// browser is sent to the sign-in page and back where it was after it.
// The session cookie is out of reach of scripts.
func TestBrowserSessionExpiry(t *testing.T) {
	e := newEnv(t)
	e.user("ann")
	tab := browsertest.NewTab(t)
	e.signIn(tab, "ann")
	if cookies := browsertest.Eval[string](tab, `document.cookie`); strings.Contains(cookies, "kurz_session") {
		t.Errorf("scripts can read the session cookie: %q", cookies)
	}
	if _, err := pgtest.Pool(e.store).Exec(context.Background(), `UPDATE sessions SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	tab.Open(e.base + "/account")
	if u := tab.URL(); u != e.base+"/login?next=%2Faccount" {
		t.Fatalf("with an expired session /account leads to %s", u)
	}
	if h := tab.Text("main h1"); h != "Sign in to kurz" {
		t.Fatalf("page %q", h)
	}
	tab.SetValue("#f-login", "ann@example.com")
	tab.SetValue("#f-password", testPassword)
	tab.ClickNavigate("main form button[type=submit]")
	if u := tab.URL(); u != e.base+"/account" {
		t.Errorf("after signing in again at %s, want /account", u)
	}
}

// TestSessionCookie: the session cookie is HttpOnly, SameSite=Lax, for the
// whole site; over https (told by a trusted proxy) it is Secure and takes
// the __Host- prefix. Signing out ends the session in the store, and a
// password change ends every other session of the account.
func TestSessionCookie(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")} })
	e.user("ann")
	for _, https := range []bool{false, true} {
		c := e.client()
		h := map[string]string{}
		if https {
			h["X-Forwarded-Proto"] = "https"
		}
		c.do(http.MethodGet, "/login", nil, h)
		tok := csrfRE.FindStringSubmatch(c.do(http.MethodGet, "/login", nil, h).body)[1]
		r := c.do(http.MethodPost, "/login", url.Values{"csrf": {tok}, "login": {"ann"}, "password": {testPassword}}, h)
		set := r.header.Get("Set-Cookie")
		wantName, secure := "kurz_session=", false
		if https {
			wantName, secure = "__Host-kurz_session=", true
		}
		if r.status != http.StatusSeeOther || !strings.HasPrefix(set, wantName) || !strings.Contains(set, "HttpOnly") ||
			!strings.Contains(set, "SameSite=Lax") || !strings.Contains(set, "Path=/") || strings.Contains(set, "Secure") != secure {
			t.Errorf("https=%v: status %d, Set-Cookie %q", https, r.status, set)
		}
		if strings.Contains(r.header.Get("Location"), "session") {
			t.Errorf("the session id is in a URL: %s", r.header.Get("Location"))
		}
	}

	a, b := e.client(), e.client()
	a.signIn("ann")
	b.signIn("ann")
	r := a.post("/account/password", url.Values{"csrf": {a.token("/account")}, "current": {testPassword},
		"new": {"a new passphrase"}, "confirm": {"a new passphrase"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("password change: status %d: %s", r.status, r.body)
	}
	if r := a.get("/links"); r.status != http.StatusOK {
		t.Errorf("the browser that changed the password was signed out: %d", r.status)
	}
	if r := b.get("/links"); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login") {
		t.Errorf("another session survived the password change: %d %s", r.status, r.header.Get("Location"))
	}
	if r := a.post("/logout", url.Values{"csrf": {a.token("/links")}}); r.status != http.StatusSeeOther {
		t.Fatalf("sign-out: status %d", r.status)
	}
	if r := a.get("/links"); r.status != http.StatusSeeOther {
		t.Errorf("after sign-out /links: %d", r.status)
	}
	var n int
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT count(*) FROM sessions`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d sessions stored after sign-out, %v", n, err)
	}
}

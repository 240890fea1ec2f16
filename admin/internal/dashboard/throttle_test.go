package dashboard

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"kurz/shared/browsertest"
	"kurz/shared/config"
)

// awayFromWindowEdge waits out the last seconds of a minute, so a test's
// attempts all fall into one throttling window.
func awayFromWindowEdge() {
	if left := time.Until(time.Now().Truncate(time.Minute).Add(time.Minute)); left < 10*time.Second {
		time.Sleep(left + 100*time.Millisecond)
	}
}

// TestBrowserLoginThrottled: a client gets loginPerClient wrong passwords
// a minute; the next attempt, even with the right password, is refused
// with 429 and a page that says how long to wait, and keeps the name typed.
func TestBrowserLoginThrottled(t *testing.T) {
	e := newEnv(t)
	e.user("ann")
	awayFromWindowEdge()
	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)
	try := func(pw string) int {
		t.Helper()
		tab.Open(e.base + "/login")
		tab.SetValue("#f-login", "ann")
		tab.SetValue("#f-password", pw)
		return tab.ClickNavigate("main form button[type=submit]")
	}
	for i := range loginPerClient {
		if st := try(fmt.Sprintf("wrong password %d", i)); st != http.StatusUnauthorized {
			t.Fatalf("wrong password %d: status %d", i, st)
		}
	}
	if st := try(testPassword); st != http.StatusTooManyRequests {
		t.Fatalf("after %d wrong passwords the right one: status %d, want 429", loginPerClient, st)
	}
	if got := tab.Text("[role=alert]"); !strings.Contains(got, "Too many sign-in attempts. Try again in") {
		t.Errorf("throttled page says %q", got)
	}
	if got := tab.Attr("#f-login", "value"); got != "ann" {
		t.Errorf("the throttled form lost the name: %q", got)
	}
	shoot(t, tab, "throttled")
}

// throttleEnv believes X-Forwarded-For from loopback, so one test can sign
// in from many client addresses.
func throttleEnv(t *testing.T) *env {
	return newEnv(t, func(c *config.Config) { c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")} })
}

// attempt posts a sign-in from ip, as a new visitor; it returns the status.
func attempt(e *env, ip, login, pw string) int {
	e.t.Helper()
	c := e.client()
	tok := c.token("/login")
	return c.do(http.MethodPost, "/login", url.Values{"csrf": {tok}, "login": {login}, "password": {pw}},
		map[string]string{"X-Forwarded-For": ip}).status
}

// TestLoginThrottlePolicy: the edge's link-password policy on sign-in.
// Right passwords give their count back; an account takes at most
// loginPerSource wrong passwords from one source (an IPv6 /48 across its
// /64s) and loginPerAccount from everyone, then refuses even the right
// one; unknown names are counted like accounts.
func TestLoginThrottlePolicy(t *testing.T) {
	e := throttleEnv(t)
	e.user("ann")
	e.user("bob")
	awayFromWindowEdge()

	// A right password is not counted: 4 wrong, right, wrong is still 5.
	for _, pw := range []string{"w1", "w2", "w3", "w4", testPassword, "w5"} {
		want := http.StatusUnauthorized
		if pw == testPassword {
			want = http.StatusSeeOther
		}
		if st := attempt(e, "192.0.2.1", "bob", pw); st != want {
			t.Fatalf("192.0.2.1 as bob with %q: status %d, want %d", pw, st, want)
		}
	}
	if st := attempt(e, "192.0.2.1", "bob", "w6"); st != http.StatusTooManyRequests {
		t.Fatalf("the sixth wrong password: status %d, want 429", st)
	}

	// One /48: loginPerSource wrong passwords for ann across its /64s.
	for i := range loginPerSource {
		if st := attempt(e, fmt.Sprintf("2001:db8:1:%x::1", i), "ann", "wrong"); st != http.StatusUnauthorized {
			t.Fatalf("source attempt %d: status %d", i, st)
		}
	}
	if st := attempt(e, "2001:db8:1:ffff::1", "ann", testPassword); st != http.StatusTooManyRequests {
		t.Fatalf("past the source's share: status %d, want 429", st)
	}
	if st := attempt(e, "198.51.100.1", "ann", testPassword); st != http.StatusSeeOther {
		t.Fatalf("another source with the right password: status %d", st)
	}

	// The account's cap, from many sources; then even the right password waits.
	for i := range loginPerAccount - loginPerSource {
		if st := attempt(e, fmt.Sprintf("203.0.113.%d", i+1), "ann", "wrong"); st != http.StatusUnauthorized {
			t.Fatalf("account attempt %d: status %d", i, st)
		}
	}
	if st := attempt(e, "198.51.100.2", "ann", testPassword); st != http.StatusTooManyRequests {
		t.Fatalf("past the account's cap: status %d, want 429", st)
	}
	// Other accounts are not affected; unknown names are throttled alike.
	if st := attempt(e, "198.51.100.3", "bob", testPassword); st != http.StatusSeeOther {
		t.Fatalf("bob after ann's cap: status %d", st)
	}
	for i := range loginPerClient {
		if st := attempt(e, "198.51.100.9", "nobody", fmt.Sprint(i)); st != http.StatusUnauthorized {
			t.Fatalf("unknown name attempt %d: status %d", i, st)
		}
	}
	if st := attempt(e, "198.51.100.9", "nobody", "x"); st != http.StatusTooManyRequests {
		t.Fatalf("unknown name past the client budget: status %d", st)
	}
}

package server

import (
	"cmp"
	"net/http"
	"net/http/cookiejar"
	"net/netip"
	"net/url"
	"testing"

	"kurz/shared/clientip"
)

// TestPasswordCookieSecureFollowsScheme: the unlock cookie's Secure flag
// follows the scheme the visitor reached the link on, not KURZ_BASE_URL's.
// With an https base URL, a link on an http:// branded domain must still
// unlock: a browser (here net/http's cookie jar) never sends a Secure
// cookie over http, so the visit after the right password would get the
// form again.
func TestPasswordCookieSecureFollowsScheme(t *testing.T) {
	tests := []struct {
		name    string
		trusted string // KURZ_TRUSTED_PROXIES; "" = none
		peer    string
		host    string // "" = the default domain
		proto   string // X-Forwarded-Proto; "" = none
		browser string // the scheme the visitor's browser is on
		secure  bool
	}{
		{"http branded domain", "", "", "go.brand.test", "", "http", false},
		{"http branded domain, proxy says http", "", "", "go.brand.test", "http", "http", false},
		{"https branded domain", "", "", "go.brand.test", "https", "https", true},
		{"https branded domain behind a CDN and a plain LB", "", "", "go.brand.test", "https, http", "https", true},
		{"default domain, https base URL", "", "", "", "", "https", true},
		{"default domain reached over http", "", "", "", "http", "http", false},
		{"trusted proxy says https", "127.0.0.0/8", "127.0.0.1", "go.brand.test", "HTTPS", "https", true},
		{"untrusted peer's header ignored", "127.0.0.0/8", "198.51.100.7", "go.brand.test", "https", "http", false},
	}
	envs := map[string]*env{} // one per KURZ_TRUSTED_PROXIES, living as long as t
	for _, tt := range tests {
		if envs[tt.trusted] != nil {
			continue
		}
		e := newEnv(t, func(c *Config) {
			c.BaseURL = "https://kurz.test"
			if tt.trusted != "" {
				c.Resolver = clientip.New([]netip.Prefix{netip.MustParsePrefix(tt.trusted)})
			}
		})
		e.addDomain("go.brand.test", "", "")
		e.exec(`UPDATE domains SET domain = 'http://go.brand.test' WHERE host = 'go.brand.test'`)
		envs[tt.trusted] = e
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := envs[tt.trusted]
			alias := "locked" + fmtID(int64(i))
			id := e.addLink(linkRow{Host: tt.host, Alias: alias, URL: "https://example.com/private", Password: "right"})
			headers := map[string]string{}
			if tt.proto != "" {
				headers["X-Forwarded-Proto"] = tt.proto
			}
			r := e.do(req{method: "POST", host: tt.host, path: "/" + alias, form: "password=right", peer: tt.peer, headers: headers})
			expect(t, r, 303, "/"+alias)
			raw := string(r.Header.PeekCookie("kurz_pw_" + fmtID(id)))
			cookie, err := http.ParseSetCookie(raw)
			if err != nil {
				t.Fatalf("Set-Cookie %q: %v", raw, err)
			}
			if cookie.Secure != tt.secure {
				t.Fatalf("Secure = %v, want %v (Set-Cookie %q)", cookie.Secure, tt.secure, raw)
			}
			// What the visitor's browser sends back.
			page, _ := url.Parse(tt.browser + "://" + cmp.Or(tt.host, "kurz.test") + "/" + alias)
			jar, _ := cookiejar.New(nil)
			jar.SetCookies(page, []*http.Cookie{cookie})
			sent := jar.Cookies(page)
			if len(sent) != 1 {
				t.Fatalf("a browser on %s would send %d cookies back", page, len(sent))
			}
			expect(t, e.do(req{host: tt.host, path: "/" + alias, peer: tt.peer, headers: headers, cookie: sent[0].String()}),
				302, "https://example.com/private")
		})
	}
}

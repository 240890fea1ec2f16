package server

import (
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kurz/shared/click"
	"kurz/shared/clientip"
	"kurz/shared/geoip"
	"kurz/shared/pgstore/pgtest"
)

func TestDirectRedirect(t *testing.T) {
	e := newEnv(t)
	id := e.addLink(linkRow{Alias: "abc", URL: "https://example.com/landing?x=1"})
	r := e.do(req{path: "/abc", headers: map[string]string{"Referer": "https://news.example/", "Accept-Language": "de"}})
	expect(t, r, 302, "https://example.com/landing?x=1")
	if cc := string(r.Header.Peek("Cache-Control")); cc != "no-store" {
		t.Fatalf("Cache-Control = %q", cc)
	}
	h := e.rec.last(t)
	if h.LinkID != id || h.OwnerID != e.user || h.Kind != click.KindLink || h.Class != click.ClassHuman {
		t.Fatalf("hit = link %d owner %d kind %d class %d", h.LinkID, h.OwnerID, h.Kind, h.Class)
	}
	if h.UAString() != browserUA || h.RefererString() != "https://news.example/" || h.LangString() != "de" {
		t.Fatalf("hit strings = %q %q %q", h.UAString(), h.RefererString(), h.LangString())
	}
	if netip.AddrFrom16(h.IP).Unmap() != netip.MustParseAddr("198.51.100.7") || h.UnixNano == 0 {
		t.Fatalf("hit ip %v time %d", netip.AddrFrom16(h.IP), h.UnixNano)
	}
	// Served from the cache the second time: same answer.
	expect(t, e.do(req{path: "/abc"}), 302, "https://example.com/landing?x=1")
	// Aliases are case-sensitive.
	expect(t, e.do(req{path: "/ABC"}), 404, "")
}

func TestResolution(t *testing.T) {
	e := newEnv(t)
	e.addDomain("go.brand.test", "https://brand.test/home", "https://brand.test/missing")
	e.addDomain("plain.brand.test", "", "")
	// A row naming the default domain with a port (the admin API refuses
	// it; an old row or a changed base URL) must not capture its visitors.
	e.addDomain("kurz.test:8443", "https://evil.test/root", "https://evil.test/missing")
	e.addLink(linkRow{Alias: "dflt", URL: "https://example.com/default"})
	e.addLink(linkRow{Host: "go.brand.test", Alias: "dflt", URL: "https://example.com/branded"})
	tests := []struct {
		name, host, path string
		status           int
		loc, body        string
	}{
		{"default domain", "kurz.test", "/dflt", 302, "https://example.com/default", ""},
		{"branded domain, same alias", "go.brand.test", "/dflt", 302, "https://example.com/branded", ""},
		{"branded host case and port ignored", "GO.Brand.TEST:8080", "/dflt", 302, "https://example.com/branded", ""},
		{"unknown host is the default domain", "elsewhere.test", "/dflt", 302, "https://example.com/default", ""},
		{"branded root -> redirectroot", "go.brand.test", "/", 302, "https://brand.test/home", ""},
		{"branded root without redirectroot -> landing", "plain.brand.test", "/", 200, "", "plain.brand.test"},
		{"default root -> landing", "kurz.test", "/", 200, "", "<html"},
		{"default domain with a port -> still the default domain", "kurz.test:8443", "/dflt", 302, "https://example.com/default", ""},
		{"default domain trailing dot -> still the default domain", "KURZ.test.", "/dflt", 302, "https://example.com/default", ""},
		{"branded unknown alias -> redirect404", "go.brand.test", "/nope", 302, "https://brand.test/missing", ""},
		{"branded unknown alias without redirect404 -> 404", "plain.brand.test", "/nope", 404, "", "<html"},
		{"default unknown alias -> 404 page", "kurz.test", "/nope", 404, "", "<html"},
		{"not an alias -> 404 page", "kurz.test", "/a/b/c", 404, "", "<html"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(req{host: tt.host, path: tt.path})
			expect(t, r, tt.status, tt.loc)
			if tt.body != "" {
				expectBody(t, r, tt.body)
				if ct := string(r.Header.ContentType()); !strings.HasPrefix(ct, "text/html") {
					t.Fatalf("Content-Type = %q", ct)
				}
				if r.Header.Peek("Content-Security-Policy") == nil || string(r.Header.Peek("X-Content-Type-Options")) != "nosniff" {
					t.Fatal("security headers missing")
				}
			}
		})
	}
}

func TestExpired(t *testing.T) {
	e := newEnv(t)
	e.addDomain("go.brand.test", "", "https://brand.test/gone")
	past, future := time.Now().Add(-time.Minute), time.Now().Add(time.Hour)
	// A common "never": past 2262, where UnixNano overflows.
	never := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	e.addLink(linkRow{Alias: "old", URL: "https://example.com/", Expires: &past})
	e.addLink(linkRow{Alias: "fresh", URL: "https://example.com/fresh", Expires: &future})
	e.addLink(linkRow{Alias: "far", URL: "https://example.com/far", Expires: &never})
	e.addLink(linkRow{Host: "go.brand.test", Alias: "old", URL: "https://example.com/", Expires: &past})
	expect(t, e.do(req{path: "/old"}), 410, "")
	expect(t, e.do(req{path: "/fresh"}), 302, "https://example.com/fresh")
	expect(t, e.do(req{path: "/far"}), 302, "https://example.com/far")
	expect(t, e.do(req{host: "go.brand.test", path: "/old"}), 302, "https://brand.test/gone")
	if n := len(e.rec.all()); n != 2 {
		t.Fatalf("%d clicks pushed, want 2 (expired visits are not clicks)", n)
	}
}

func TestPassword(t *testing.T) {
	e := newEnv(t)
	id := e.addLink(linkRow{Alias: "secret", URL: "https://example.com/private", Password: "open sesame", MetaTitle: "Plans"})

	r := e.do(req{path: "/secret"})
	expect(t, r, 200, "")
	expectBody(t, r, `name="password"`, "Plans")
	if string(r.Header.Peek("Referrer-Policy")) != "no-referrer" {
		t.Fatalf("Referrer-Policy = %q", r.Header.Peek("Referrer-Policy"))
	}
	if len(e.rec.all()) != 0 {
		t.Fatal("the form must not count a click")
	}

	// Wrong password: 403 with the message; a different IP is not throttled.
	r = e.do(req{method: "POST", path: "/secret", form: "password=nope"})
	expect(t, r, 403, "")

	// Right password: cookie, 303 back to the link, then redirects.
	r = e.do(req{method: "POST", path: "/secret?utm=1", form: "password=open+sesame", peer: "203.0.113.9"})
	expect(t, r, 303, "/secret?utm=1")
	raw := string(r.Header.PeekCookie("kurz_pw_" + fmtID(id)))
	for _, want := range []string{"HttpOnly", "SameSite=Lax", "path=/secret"} {
		if !strings.Contains(raw, want) {
			t.Fatalf("cookie %q lacks %s", raw, want)
		}
	}
	cookie := strings.SplitN(raw, ";", 2)[0]
	expect(t, e.do(req{path: "/secret", cookie: cookie}), 302, "https://example.com/private")
	if h := e.rec.last(t); h.LinkID != id {
		t.Fatalf("click on %d", h.LinkID)
	}
	// A tampered cookie is refused.
	expect(t, e.do(req{path: "/secret", cookie: cookie + "x"}), 200, "")

	// A password change invalidates issued cookies.
	e.addLinkPasswordChange(id, "new one")
	expect(t, e.do(req{path: "/secret", cookie: cookie}), 200, "")
}

func (e *env) addLinkPasswordChange(id int64, pw string) {
	e.t.Helper()
	hash := hashPassword(e.t, pw)
	e.exec(`UPDATE links SET password_hash = $1 WHERE id = $2`, hash, id)
	var host, alias string
	if err := pgtest.Pool(e.store).QueryRow(t0(), `SELECT host, alias FROM links WHERE id = $1`, id).Scan(&host, &alias); err != nil {
		e.t.Fatal(err)
	}
	e.cat.InvalidateLink(host, alias)
}

func TestPasswordThrottle(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.PasswordAttempts = 3 })
	e.addLink(linkRow{Alias: "locked", URL: "https://example.com/", Password: "right"})
	for i := range 3 {
		expect(t, e.do(req{method: "POST", path: "/locked", form: "password=wrong" + fmtID(int64(i))}), 403, "")
	}
	r := e.do(req{method: "POST", path: "/locked", form: "password=right"})
	expect(t, r, 429, "")
	if r.Header.Peek("Retry-After") == nil {
		t.Fatal("throttled form without Retry-After")
	}
	// Another client IP is not affected.
	expect(t, e.do(req{method: "POST", path: "/locked", form: "password=right", peer: "203.0.113.50"}), 303, "/locked")
	// Right answers are not counted: they never lock their client out.
	for range 5 {
		expect(t, e.do(req{method: "POST", path: "/locked", form: "password=right", peer: "203.0.113.51"}), 303, "/locked")
	}
	// IPv6 clients are counted by /64: one subscriber's other addresses
	// share the budget, the next /64 does not.
	for i := range 3 {
		expect(t, e.do(req{method: "POST", path: "/locked", form: "password=wrong", peer: "2001:db8:0:7::" + fmtID(int64(i+1))}), 403, "")
	}
	expect(t, e.do(req{method: "POST", path: "/locked", form: "password=right", peer: "2001:db8:0:7:ffff::9"}), 429, "")
	expect(t, e.do(req{method: "POST", path: "/locked", form: "password=right", peer: "2001:db8:0:8::1"}), 303, "/locked")
}

// Attempts are counted before the password is checked: parallel guesses
// cannot all pass the limit while their count is still 0.
func TestLimiterCountsBeforeTheCheck(t *testing.T) {
	l := newLimiter(5, time.Minute, 100)
	key := limiterKey{ip: netip.MustParseAddr("192.0.2.1"), link: 1}
	now := time.Now()
	var passed atomic.Int64
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if l.take(key, now) == 0 {
				passed.Add(1)
			}
		})
	}
	wg.Wait()
	if n := passed.Load(); n != 5 {
		t.Fatalf("%d of 50 concurrent attempts passed, want 5", n)
	}
	l.refund(key, now)
	if l.take(key, now) != 0 || l.take(key, now) == 0 {
		t.Fatal("a refunded attempt should free exactly one")
	}
	if l.take(key, now.Add(time.Minute)) != 0 {
		t.Fatal("a new window should allow attempts again")
	}
}

func TestSocialPreview(t *testing.T) {
	e := newEnv(t)
	id := e.addLink(linkRow{Alias: "card", URL: "https://example.com/article",
		MetaTitle: `Tom & "Jerry" <script>alert(1)</script>`, MetaDesc: "A <b>story</b>", MetaImage: "https://img.example.com/a.png"})
	for _, ua := range []string{
		"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
		"Twitterbot/1.0", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
		"WhatsApp/2.23.20.0", "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
		"TelegramBot (like TwitterBot)", "LinkedInBot/1.0 (compatible; Mozilla/5.0)",
	} {
		t.Run(ua, func(t *testing.T) {
			r := e.do(req{path: "/card", ua: ua})
			expect(t, r, 200, "")
			expectBody(t, r, `property="og:title"`, "Tom &amp; &#34;Jerry&#34; &lt;script&gt;", "https://img.example.com/a.png", "twitter:card")
			if strings.Contains(string(r.Body()), "<script>alert") {
				t.Fatal("unescaped title")
			}
			if h := e.rec.last(t); h.LinkID != id || h.Class != click.ClassPreview {
				t.Fatalf("hit class %v", h.Class)
			}
		})
	}
	// A crawler that is not a previewer follows the redirect, flagged as bot.
	expect(t, e.do(req{path: "/card", ua: "Mozilla/5.0 (compatible; Googlebot/2.1)"}), 302, "https://example.com/article")
	if h := e.rec.last(t); h.Class != click.ClassBot {
		t.Fatalf("googlebot class %v", h.Class)
	}
	// HEAD from a browser is a prefetch.
	expect(t, e.do(req{method: "HEAD", path: "/card"}), 302, "https://example.com/article")
	if h := e.rec.last(t); h.Class != click.ClassPrefetch {
		t.Fatalf("HEAD class %v", h.Class)
	}
}

const (
	iphoneUA  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
	androidUA = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"
	windowsUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"
	macUA     = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"
)

func TestTargeting(t *testing.T) {
	dir := t.TempDir()
	mmdb := filepath.Join(dir, "geo.mmdb")
	if err := geoip.WriteTestDB(mmdb, map[string]string{"198.51.100.0/24": "FR", "203.0.113.0/24": "DE"}); err != nil {
		t.Fatal(err)
	}
	db, err := geoip.Open(mmdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}

	full := linkRow{Alias: "t", URL: "https://example.com/default",
		IOS: "https://apps.apple.com/app/id1", Android: "https://play.google.com/store/apps/details?id=x",
		Geo:    [][2]string{{"DE", "https://example.com/de"}, {"US", "https://example.com/us"}},
		Device: [][2]string{{"windows", "https://example.com/windows"}, {"iphone", "https://example.com/iphone"}},
		Lang:   [][2]string{{"es", "https://example.com/es"}, {"fr", "https://example.com/fr"}},
	}

	t.Run("header", func(t *testing.T) {
		e := newEnv(t, func(c *Config) { c.CountryHeader = "CF-IPCountry"; c.CountryOf = db.Country })
		e.addLink(full)
		tests := []struct {
			name, ua, country, lang, want string
		}{
			{"ios deep link beats geo", iphoneUA, "DE", "", "https://apps.apple.com/app/id1"},
			{"android deep link", androidUA, "US", "", "https://play.google.com/store/apps/details?id=x"},
			{"geo by trusted header", macUA, "de", "fr", "https://example.com/de"},
			{"geo beats device", windowsUA, "US", "", "https://example.com/us"},
			{"device when no geo match", windowsUA, "JP", "fr", "https://example.com/windows"},
			{"invalid header country ignored", windowsUA, "XX", "", "https://example.com/windows"},
			{"language with q-values", macUA, "JP", "de;q=0.9, fr;q=0.8, es;q=0.5", "https://example.com/fr"},
			{"language region matches base", macUA, "", "es-MX,es;q=0.9", "https://example.com/es"},
			{"nothing matches -> long url", macUA, "JP", "ja", "https://example.com/default"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				h := map[string]string{"CF-IPCountry": tt.country}
				if tt.lang != "" {
					h["Accept-Language"] = tt.lang
				}
				// GeoIP would say FR for this peer: the header wins.
				expect(t, e.do(req{path: "/t", ua: tt.ua, headers: h}), 302, tt.want)
			})
		}
	})

	t.Run("geoip", func(t *testing.T) {
		e := newEnv(t, func(c *Config) { c.CountryOf = db.Country; c.Resolver = clientip.New(trusted) })
		e.addLink(linkRow{Alias: "g", URL: "https://example.com/default",
			Geo: [][2]string{{"DE", "https://example.com/de"}, {"FR", "https://example.com/fr"}}})
		tests := []struct {
			name, peer, xff, want string
		}{
			{"peer address", "203.0.113.5", "", "https://example.com/de"},
			{"xff from trusted proxy", "10.1.2.3", "198.51.100.20", "https://example.com/fr"},
			{"xff from untrusted peer ignored", "203.0.113.5", "198.51.100.20", "https://example.com/de"},
			{"unknown country", "192.0.2.1", "", "https://example.com/default"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				h := map[string]string{}
				if tt.xff != "" {
					h["X-Forwarded-For"] = tt.xff
				}
				expect(t, e.do(req{path: "/g", peer: tt.peer, headers: h}), 302, tt.want)
			})
		}
		// The click records the resolved client address.
		e.do(req{path: "/g", peer: "10.1.2.3", headers: map[string]string{"X-Forwarded-For": "198.51.100.20"}})
		if ip := netip.AddrFrom16(e.rec.last(t).IP).Unmap(); ip != netip.MustParseAddr("198.51.100.20") {
			t.Fatalf("hit ip %v", ip)
		}
	})
}

func TestParameters(t *testing.T) {
	e := newEnv(t)
	e.addLink(linkRow{Alias: "p", URL: "https://shop.example/item?ref=owner&utm_source=old#reviews",
		Params: [][2]string{{"utm_source", "kurz"}, {"utm_campaign", "spring sale"}},
		Device: [][2]string{{"windows", "https://shop.example/win"}}})
	tests := []struct {
		name, path, ua, want string
	}{
		{"parameters replace same-named and keep the fragment last", "/p", macUA,
			"https://shop.example/item?ref=owner&utm_source=kurz&utm_campaign=spring+sale#reviews"},
		{"visitor query appended, owner's names win", "/p?ref=evil&utm_source=x&fbclid=123&q=a%20b", macUA,
			"https://shop.example/item?ref=owner&utm_source=kurz&utm_campaign=spring+sale&fbclid=123&q=a%20b#reviews"},
		{"parameters on targeted destinations too", "/p?x=1", windowsUA,
			"https://shop.example/win?utm_source=kurz&utm_campaign=spring+sale&x=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, e.do(req{path: tt.path, ua: tt.ua}), 302, tt.want)
		})
	}
}

func TestRedirectTypes(t *testing.T) {
	e := newEnv(t)
	splash := e.id(`INSERT INTO splash_pages (user_id, name, title, message, counter) VALUES ($1, 's', 'Hold on', 'Sponsored by <Acme>', 3) RETURNING id`, e.user)
	overlay := e.id(`INSERT INTO overlays (user_id, name, message, button_text, button_url, background, color, position)
		VALUES ($1, 'o', 'Join our list', 'Sign up', 'https://acme.example/signup', '#112233', '#ffffff', 'top-right') RETURNING id`, e.user)
	other := e.createUser("mallory")
	foreign := e.id(`INSERT INTO splash_pages (user_id, name, title) VALUES ($1, 'x', 'Not yours') RETURNING id`, other)
	pixel := e.id(`INSERT INTO pixels (user_id, type, name, tag) VALUES ($1, 'socialnetworkpixel', 'fb', '1234567890') RETURNING id`, e.user)

	e.addLink(linkRow{Alias: "framed", URL: "https://example.com/f", Type: "frame"})
	e.addLink(linkRow{Alias: "splashed", URL: "https://example.com/s", Type: "splash", SplashID: &splash})
	e.addLink(linkRow{Alias: "dsplash", URL: "https://example.com/d", Type: "splash"})
	e.addLink(linkRow{Alias: "foreign", URL: "https://example.com/x", Type: "splash", SplashID: &foreign})
	e.addLink(linkRow{Alias: "overlaid", URL: "https://example.com/o", Type: "overlay", OverlayID: &overlay})
	px := e.addLink(linkRow{Alias: "pixeled", URL: "https://example.com/p"})
	e.exec(`INSERT INTO link_pixels (link_id, pixel_id) VALUES ($1, $2)`, px, pixel)

	tests := []struct {
		alias string
		parts []string
		not   string
	}{
		{"framed", []string{"<iframe", "https://example.com/f"}, ""},
		{"splashed", []string{"Hold on", "Sponsored by &lt;Acme&gt;", "https://example.com/s"}, ""},
		{"dsplash", []string{"https://example.com/d"}, ""},
		{"foreign", []string{"https://example.com/x"}, "Not yours"},
		{"overlaid", []string{"Join our list", "https://acme.example/signup", "https://example.com/o"}, ""},
		{"pixeled", []string{"1234567890", "https://example.com/p", "<noscript>"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.alias, func(t *testing.T) {
			before := len(e.rec.all())
			r := e.do(req{path: "/" + tt.alias})
			expect(t, r, 200, "")
			expectBody(t, r, tt.parts...)
			if tt.not != "" && strings.Contains(string(r.Body()), tt.not) {
				t.Fatalf("page shows another account's content %q", tt.not)
			}
			if r.Header.Peek("Content-Security-Policy") == nil {
				t.Fatal("no CSP")
			}
			if len(e.rec.all()) != before+1 {
				t.Fatal("visit not counted")
			}
		})
	}
}

func TestUnsafeLongURLNeverReachesLocation(t *testing.T) {
	e := newEnv(t)
	e.addLink(linkRow{Alias: "bad", URL: "https://example.com/\r\nSet-Cookie: x=1"})
	e.addLink(linkRow{Alias: "js", URL: "javascript:alert(1)"})
	expect(t, e.do(req{path: "/bad"}), 404, "")
	expect(t, e.do(req{path: "/js"}), 404, "")
	e.addLink(linkRow{Alias: "ok", URL: "https://example.com/"})
	r := e.do(req{path: "/ok?a=%0d%0aX:1"})
	if strings.ContainsAny(location(r), "\r\n") {
		t.Fatalf("Location %q", location(r))
	}
}

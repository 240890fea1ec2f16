package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/admin/internal/price"
	"kurz/admin/internal/stats"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
	"kurz/shared/config"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// newFullEnv is an admin as production runs it: PostgreSQL, ClickHouse
// stats, the price service, readiness checks of both stores, open
// registration and one CORS origin.
func newFullEnv(t *testing.T) (*testEnv, driver.Conn) {
	t.Helper()
	st, dsn := pgtest.Store(t)
	ch, _ := chtest.New(t)
	prices, err := price.NewService(st, ch, price.Options{StaleAfter: time.Hour, CacheTTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(prices.Close)
	cfg := &config.Config{BaseURL: "http://sho.rt", BaseHost: "sho.rt", AnonRateLimit: 1000, Secret: "test-secret",
		Registration: config.RegistrationOpen, RegistrationRateLimit: 100, CORSOrigins: []string{"https://app.example.com"}}
	srv := New(Deps{Store: st, Config: cfg, Price: prices, Stats: stats.New(ch),
		Ready: []Check{{Name: "postgres", Fn: st.Ping}, {Name: "clickhouse", Fn: ch.Ping}}})
	srv.frameFetch = noFrameFetch
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	if _, err := prices.Update(t.Context(), []pgstore.Quote{{Symbol: "AAPL", Price: "189.25", Currency: "USD",
		QuotedAt: time.Now().Add(-time.Minute).Truncate(time.Second)}}, price.SourceImport); err != nil {
		t.Fatal(err)
	}
	return &testEnv{t: t, store: st, dsn: dsn, cfg: cfg, srv: srv, http: hs}, ch
}

// oaFixture carries the keys and the ids one area creates for the next.
type oaFixture struct {
	*docCheck
	ch                      driver.Conn
	alice, bob, op          string // API keys; op is an operator
	domain, channel, pixel  int64
	campaign, splash, link  int64
	overlay, qr, bio, other int64 // other: a link of alice on the branded domain
}

// missing is an id no record has.
const missing = 999999

// TestOpenAPIResponses drives every endpoint of the running admin, on
// success and error paths, and validates each request and real response
// against openapi.json; then it checks that every operation answered a
// success and each documented 400, 401, 404 and 409.
func TestOpenAPIResponses(t *testing.T) {
	e, ch := newFullEnv(t)
	f := &oaFixture{docCheck: newDocCheck(t, e), ch: ch}
	_, f.alice = e.user("alice")
	_, f.bob = e.user("bob")
	_, f.op = e.user("operator", operator)
	for _, area := range []func(){f.meta, f.account, f.register, f.domains, f.overlays, f.splashes, f.pixels,
		f.channels, f.campaigns, f.links, f.linkStats, f.qrs, f.prices, f.deletes, f.noKey, f.limits} {
		area()
	}
	exempt := map[string]string{
		"rotateKey 409": "only a concurrent rotation with the same key gets it (rotate_test.go races for it)",
	}
	for _, gap := range f.coverageGaps(exempt) {
		t.Error(gap)
	}
}

func (f *oaFixture) meta() {
	f.do(call{method: "GET", path: "/api/openapi.json", status: 200})
	f.do(call{method: "GET", path: "/healthz", status: 200})
	f.do(call{method: "GET", path: "/readyz", status: 200})
	// a CORS request: the optional headers must match too
	r := f.do(call{method: "GET", path: "/api/account", key: f.alice, origin: "https://app.example.com", status: 200})
	if r.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		f.t.Errorf("CORS: no Access-Control-Allow-Origin in %v", r.Header)
	}
}

func (f *oaFixture) account() {
	a := f.alice
	f.do(call{method: "GET", path: "/api/account", auth: "Token " + a, status: 200})
	f.do(call{method: "GET", path: "/api/account", auth: a, status: 200})
	f.do(call{method: "GET", path: "/api/account", auth: "Bearer kurz_unknown", status: 401})
	up := "/api/account/update"
	f.do(call{method: "PUT", path: up, key: a, body: map[string]any{"email": "alice2@example.com"}, status: 200})
	f.do(call{method: "PUT", path: up, key: a, body: map[string]any{"email": "not an address"}, status: 400})
	f.do(call{method: "PUT", path: up, key: a, body: map[string]any{"email": 5}, status: 400, invalid: true})
	f.do(call{method: "PUT", path: up, key: a, body: map[string]any{"email": "bob@example.com"}, status: 409})
	f.do(call{method: "PUT", path: up, key: a, body: url.Values{"email": {"alice3@example.com"}}, status: 200})
	f.do(call{method: "PUT", path: up, key: a, body: "plain words", ctype: "text/plain", status: 415, invalid: true})
	big := `{"email":"` + strings.Repeat("a", MaxBody) + `"}`
	f.do(call{method: "PUT", path: up, key: a, body: big, status: 413})
	_, key := f.e.user("rotor")
	r := f.do(call{method: "POST", path: "/api/account/key/rotate", key: key, status: 200})
	f.do(call{method: "POST", path: "/api/account/key/rotate", key: key, status: 401}) // the old key
	f.do(call{method: "GET", path: "/api/account", key: r.Body["api_key"].(string), status: 200})
}

func (f *oaFixture) register() {
	p := "/api/register"
	ann := map[string]any{"email": "ann@example.com", "username": "ann", "password": "a long passphrase"}
	f.do(call{method: "POST", path: p, body: ann, status: 201})
	f.do(call{method: "POST", path: p, body: ann, status: 409})
	f.do(call{method: "POST", path: p, body: map[string]any{"email": "cy@example.com", "username": "Cy", "password": "a long passphrase"}, status: 400})
	f.do(call{method: "POST", path: p, body: map[string]any{"email": "cy@example.com"}, status: 400, invalid: true})
	f.do(call{method: "POST", path: p, body: ann, origin: "https://evil.example", status: 403})
}

func (f *oaFixture) domains() {
	a := f.alice
	f.domain = f.id(f.do(call{method: "POST", path: "/api/domain/add", key: a,
		body: map[string]any{"domain": "https://go.example.com", "redirectroot": "https://example.com"}, status: 200}))
	f.do(call{method: "POST", path: "/api/domain/add", key: a, body: multipartForm{"domain": "https://go2.example.com"}, status: 200})
	f.do(call{method: "POST", path: "/api/domain/add", key: f.bob, body: map[string]any{"domain": "https://GO.example.com"}, status: 409})
	f.do(call{method: "POST", path: "/api/domain/add", key: a, body: map[string]any{"domain": "ftp://x.example"}, status: 400})
	f.do(call{method: "POST", path: "/api/domain/add", key: a, body: map[string]any{}, status: 400, invalid: true})
	f.list("/api/domains", "domains")
	u := fmt.Sprintf("/api/domain/%d/update", f.domain)
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"redirect404": "https://example.com/404"}, status: 200})
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{}, status: 400})
	f.do(call{method: "PUT", path: u, key: f.bob, body: map[string]any{"redirect404": ""}, status: 404})
	f.do(call{method: "PUT", path: "/api/domain/abc/update", key: a, body: map[string]any{"redirect404": ""}, status: 404, invalid: true})
}

// list checks a paged list: a page, a page past the end, and a bad limit.
func (f *oaFixture) list(path, key string) {
	f.t.Helper()
	r := f.do(call{method: "GET", path: path, key: f.alice, status: 200})
	if len(r.list(f.t, key)) == 0 {
		f.t.Errorf("GET %s: the list is empty, so its rows were not validated", path)
	}
	f.do(call{method: "GET", path: path + "?limit=1&page=1000", key: f.alice, status: 200})
	f.do(call{method: "GET", path: path + "?limit=0", key: f.alice, status: 400, invalid: true})
}

func (f *oaFixture) overlays() {
	a := f.alice
	f.overlay = f.id(f.do(call{method: "POST", path: "/api/overlay/add", key: a, body: map[string]any{"name": "Promo",
		"message": "20% off", "button_text": "Shop", "button_url": "https://shop.example.com", "color": "rgb(1,2,3)", "position": "top"}, status: 200}))
	f.do(call{method: "POST", path: "/api/overlay/add", key: a, body: map[string]any{"name": "x", "color": "red"}, status: 400})
	f.do(call{method: "POST", path: "/api/overlay/add", key: a, body: map[string]any{"name": "x", "position": "middle"}, status: 400, invalid: true})
	f.list("/api/overlay", "cta")
	u := fmt.Sprintf("/api/overlay/%d/update", f.overlay)
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"message": ""}, status: 200})
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"button_url": "javascript:alert(1)"}, status: 400})
	f.do(call{method: "PUT", path: fmt.Sprintf("/api/overlay/%d/update", missing), key: a, body: map[string]any{"name": "y"}, status: 404})
}

func (f *oaFixture) splashes() {
	a := f.alice
	f.splash = f.id(f.do(call{method: "POST", path: "/api/splash/add", key: a, body: map[string]any{"name": "Welcome",
		"title": "Hello", "image": "https://cdn.example.com/b.png", "counter": 3}, status: 200}))
	f.do(call{method: "POST", path: "/api/splash/add", key: a, body: map[string]any{"name": "x", "image": "file:///etc/passwd"}, status: 400})
	f.do(call{method: "POST", path: "/api/splash/add", key: a, body: map[string]any{"name": "x", "counter": 61}, status: 400, invalid: true})
	f.list("/api/splash", "splash")
	u := fmt.Sprintf("/api/splash/%d/update", f.splash)
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"counter": 0}, status: 200})
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"name": " "}, status: 400})
	f.do(call{method: "PUT", path: fmt.Sprintf("/api/splash/%d/update", missing), key: a, body: map[string]any{"name": "y"}, status: 404})
}

func (f *oaFixture) pixels() {
	a := f.alice
	r := f.do(call{method: "POST", path: "/api/pixel/add", key: a, body: map[string]any{"type": "FBPixel", "name": "Main", "tag": "123"}, status: 200})
	f.pixel = f.id(r)
	f.do(call{method: "POST", path: "/api/pixel/add", key: a, body: map[string]any{"type": "myspace", "name": "x", "tag": "1"}, status: 400})
	f.do(call{method: "POST", path: "/api/pixel/add", key: a, body: map[string]any{"type": "gtmpixel"}, status: 400, invalid: true})
	f.list("/api/pixels", "pixels")
	u := fmt.Sprintf("/api/pixel/%d/update", f.pixel)
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"tag": "GTM-NEW", "name": "Renamed"}, status: 200})
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"tag": "<script>"}, status: 400})
	f.do(call{method: "PUT", path: fmt.Sprintf("/api/pixel/%d/update", missing), key: a, body: map[string]any{"tag": "x"}, status: 404})
}

func (f *oaFixture) channels() {
	a := f.alice
	f.channel = f.id(f.do(call{method: "POST", path: "/api/channel/add", key: a,
		body: map[string]any{"name": "News", "color": "#1a2b3c", "starred": true}, status: 200}))
	f.do(call{method: "POST", path: "/api/channel/add", key: a, body: map[string]any{"name": "x", "color": "red"}, status: 400})
	f.do(call{method: "POST", path: "/api/channel/add", key: a, body: map[string]any{"name": "x", "starred": "yes"}, status: 400, invalid: true})
	f.list("/api/channels", "channels")
	u := fmt.Sprintf("/api/channel/%d/update", f.channel)
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"starred": false, "color": ""}, status: 200})
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"name": ""}, status: 400})
	f.do(call{method: "PUT", path: fmt.Sprintf("/api/channel/%d/update", missing), key: a, body: map[string]any{}, status: 404})
	f.bio = f.id(f.do(call{method: "POST", path: "/api/bio/add", key: a, body: map[string]any{"title": "About", "alias": "about"}, status: 200}))
	f.do(call{method: "POST", path: "/api/bio/add", key: a, body: map[string]any{"alias": "ABOUT"}, status: 409})
	f.do(call{method: "POST", path: "/api/bio/add", key: a, body: map[string]any{"alias": "12345"}, status: 400})
	f.list("/api/bio", "bio")
}

func (f *oaFixture) campaigns() {
	a := f.alice
	f.campaign = f.id(f.do(call{method: "POST", path: "/api/campaign/add", key: a,
		body: map[string]any{"name": "Spring", "slug": "spring-sale", "public": true}, status: 200}))
	f.do(call{method: "POST", path: "/api/campaign/add", key: a, body: map[string]any{"name": "Plain"}, status: 200})
	f.do(call{method: "POST", path: "/api/campaign/add", key: f.bob, body: map[string]any{"slug": "SPRING-sale"}, status: 409})
	f.do(call{method: "POST", path: "/api/campaign/add", key: a, body: map[string]any{"slug": "123"}, status: 400})
	f.list("/api/campaigns", "campaigns")
	other := f.id(f.do(call{method: "POST", path: "/api/campaign/add", key: a, body: map[string]any{"slug": "other-one"}, status: 200}))
	u := fmt.Sprintf("/api/campaign/%d/update", other)
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"name": "Other", "slug": ""}, status: 200})
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"name": "Other", "slug": "spring-sale"}, status: 409})
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"name": ""}, status: 400})
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"slug": "x-y-z"}, status: 400, invalid: true})
	f.do(call{method: "PUT", path: fmt.Sprintf("/api/campaign/%d/update", missing), key: a, body: map[string]any{"name": "z"}, status: 404})
}

func (f *oaFixture) links() {
	a := f.alice
	full := map[string]any{"url": "https://example.com/landing", "custom": "Spring-Sale", "domain": "https://go.example.com",
		"type": fmt.Sprintf("splash-%d", f.splash), "password": "s3cret", "expiry": "2099-12-31",
		"geotarget":      []map[string]string{{"location": "DE", "link": "https://de.example.com/"}},
		"devicetarget":   []map[string]string{{"device": "iphone", "link": "https://ios.example.com/"}},
		"languagetarget": []map[string]string{{"language": "en-US", "link": "https://en.example.com/"}},
		"metatitle":      "Spring sale", "metaimage": "https://cdn.example.com/sale.jpg", "description": "note",
		"pixels": []int64{f.pixel}, "channel": f.channel, "campaign": f.campaign, "status": "public",
		"deeplink":   map[string]string{"ios_store": "https://apps.example.com/id1"},
		"parameters": []map[string]string{{"name": "utm_source", "value": "news"}}}
	f.other = f.id(f.do(call{method: "POST", path: "/api/url/add", key: a, body: full, status: 200}))
	f.link = f.id(f.do(call{method: "POST", path: "/api/url/add", key: a, body: map[string]any{"url": "https://example.com/plain"}, status: 200}))
	f.do(call{method: "POST", path: "/api/url/add", key: a, body: url.Values{"url": {"https://example.com/form"}, "pixels[]": {fmt.Sprint(f.pixel)}}, status: 200})
	f.do(call{method: "POST", path: "/api/url/add", key: a, body: map[string]any{"url": "https://example.com/x", "custom": "Spring-Sale", "domain": "go.example.com"}, status: 409})
	f.do(call{method: "POST", path: "/api/url/add", key: a, body: map[string]any{"url": "javascript:alert(1)"}, status: 400})
	f.do(call{method: "POST", path: "/api/url/add", key: a, body: map[string]any{"custom": "abc"}, status: 400, invalid: true})
	insertOwnerHits(f.t, f.ch, 1, f.link, statsHits(click.KindLink)) // non-empty top lists
	f.list("/api/urls", "urls")
	r := f.do(call{method: "GET", path: "/api/urls?order=click&with=uniqueClicks", key: a, status: 200})
	if len(r.list(f.t, "urls")) < 3 {
		f.t.Errorf("GET /api/urls: want 3 rows, got %s", r.Raw)
	}
	f.do(call{method: "GET", path: "/api/urls?short=" + url.QueryEscape("https://go.example.com/Spring-Sale"), key: a, status: 200})
	f.do(call{method: "GET", path: "/api/urls?short=nope1", key: a, status: 404})
	f.do(call{method: "GET", path: "/api/urls?with=everything", key: a, status: 400})
	f.do(call{method: "GET", path: "/api/urls?order=best", key: a, status: 400, invalid: true})
	f.do(call{method: "GET", path: fmt.Sprintf("/api/url/%d", f.other), key: a, status: 200})
	f.do(call{method: "GET", path: fmt.Sprintf("/api/url/%d", f.link), key: a, status: 200})
	f.do(call{method: "GET", path: fmt.Sprintf("/api/url/%d", f.link), key: f.bob, status: 404})
	u := fmt.Sprintf("/api/url/%d/update", f.link)
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"metatitle": "New", "expiry": "", "campaign": 0, "status": "private"}, status: 200})
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"dedupe": false}, status: 400})
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"custom": "Spring-Sale", "domain": "https://go.example.com"}, status: 409})
	f.do(call{method: "PUT", path: fmt.Sprintf("/api/url/%d/update", missing), key: a, body: map[string]any{"metatitle": "x"}, status: 404})
	f.do(call{method: "POST", path: fmt.Sprintf("/api/campaign/%d/assign/%d", f.campaign, f.link), key: a, status: 200})
	f.do(call{method: "POST", path: fmt.Sprintf("/api/campaign/%d/assign/%d", f.campaign, missing), key: a, status: 404})
	f.do(call{method: "POST", path: fmt.Sprintf("/api/channel/%d/assign/links/%d", f.channel, f.link), key: a, status: 200})
	f.do(call{method: "POST", path: fmt.Sprintf("/api/channel/%d/assign/bio/%d", f.channel, f.bio), key: a, status: 200})
	f.do(call{method: "POST", path: fmt.Sprintf("/api/channel/%d/assign/video/%d", f.channel, f.link), key: a, status: 400})
	f.do(call{method: "POST", path: fmt.Sprintf("/api/channel/%d/assign/qr/%d", f.channel, missing), key: a, status: 404})
	// Taken out and put back, so later areas find them assigned.
	for _, m := range []string{"DELETE", "DELETE", "POST"} {
		f.do(call{method: m, path: fmt.Sprintf("/api/campaign/%d/assign/%d", f.campaign, f.link), key: a, status: 200})
		f.do(call{method: m, path: fmt.Sprintf("/api/channel/%d/assign/bio/%d", f.channel, f.bio), key: a, status: 200})
	}
	f.do(call{method: "DELETE", path: fmt.Sprintf("/api/campaign/%d/assign/%d", missing, f.link), key: a, status: 404})
	f.do(call{method: "DELETE", path: fmt.Sprintf("/api/channel/%d/assign/video/%d", f.channel, f.link), key: a, status: 400})
	f.do(call{method: "DELETE", path: fmt.Sprintf("/api/channel/%d/assign/links/%d", f.channel, f.link), key: f.bob, status: 404})
	items := fmt.Sprintf("/api/channel/%d", f.channel)
	f.do(call{method: "GET", path: items + "?limit=2", key: a, status: 200})
	f.do(call{method: "GET", path: items + "?page=x", key: a, status: 400, invalid: true})
	f.do(call{method: "GET", path: fmt.Sprintf("/api/channel/%d", missing), key: a, status: 404})
}

func (f *oaFixture) linkStats() {
	a := f.alice
	p := fmt.Sprintf("/api/url/%d/stats", f.link)
	today := time.Now().UTC().Format(time.DateOnly)
	f.do(call{method: "GET", path: p, key: a, status: 200})
	f.do(call{method: "GET", path: p + "?interval=hour&from=" + today + "&to=" + today, key: a, status: 200})
	f.do(call{method: "GET", path: p + "?from=2026-03-05&to=2026-03-01", key: a, status: 400})
	f.do(call{method: "GET", path: p + "?interval=week", key: a, status: 400, invalid: true})
	f.do(call{method: "GET", path: fmt.Sprintf("/api/url/%d/stats", missing), key: a, status: 404})
}

func (f *oaFixture) qrs() {
	a := f.alice
	f.qr = f.id(f.do(call{method: "POST", path: "/api/qr/add", key: a,
		body: map[string]any{"type": "link", "data": "https://example.com/spring", "name": "Poster"}, status: 200}))
	f.do(call{method: "POST", path: "/api/qr/add", key: a, body: map[string]any{"type": "wifi", "data": map[string]any{"ssid": "home", "password": "a long secret"}}, status: 200})
	f.do(call{method: "POST", path: "/api/qr/add", key: a, body: map[string]any{"type": "fax", "data": "x"}, status: 400})
	f.do(call{method: "POST", path: "/api/qr/add", key: a, body: map[string]any{"type": "text", "data": []int{1}}, status: 400, invalid: true})
	insertOwnerHits(f.t, f.ch, 1, f.qr, statsHits(click.KindQR))
	f.list("/api/qr", "qrs")
	f.do(call{method: "GET", path: fmt.Sprintf("/api/qr/%d", f.qr), key: a, status: 200})
	f.do(call{method: "GET", path: fmt.Sprintf("/api/qr/%d", missing), key: a, status: 404})
	u := fmt.Sprintf("/api/qr/%d/update", f.qr)
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"name": "Summer", "foreground": "rgb(60,0,0)"}, status: 200})
	f.do(call{method: "PUT", path: u, key: a, body: map[string]any{"type": "text"}, status: 400})
	f.do(call{method: "PUT", path: fmt.Sprintf("/api/qr/%d/update", missing), key: a, body: map[string]any{}, status: 404})
	f.do(call{method: "POST", path: fmt.Sprintf("/api/channel/%d/assign/qr/%d", f.channel, f.qr), key: a, status: 200})
}

func (f *oaFixture) prices() {
	f.do(call{method: "GET", path: "/api/price?symbol=aapl", key: f.alice, status: 200})
	f.do(call{method: "GET", path: "/api/price?symbol=aapl&key=" + f.alice, status: 200})
	f.do(call{method: "GET", path: "/api/price?symbol=ZZZZ", key: f.alice, status: 404})
	f.do(call{method: "GET", path: "/api/price?symbol=" + url.QueryEscape("$$$"), key: f.alice, status: 400})
	f.do(call{method: "GET", path: "/api/price", key: f.alice, status: 400, invalid: true})
	tick := map[string]any{"symbol": "MSFT", "price": "410.5", "currency": "USD", "timestamp": time.Now().UTC().Format(time.DateTime)}
	f.do(call{method: "POST", path: "/api/price/update", key: f.op, body: tick, status: 200})
	f.do(call{method: "POST", path: "/api/price/update", key: f.op, body: []any{tick, tick}, status: 200})
	f.do(call{method: "POST", path: "/api/price/update", key: f.alice, body: tick, status: 403})
	f.do(call{method: "POST", path: "/api/price/update", key: f.op, body: []any{map[string]any{"symbol": "MSFT", "price": -1, "currency": "USD", "timestamp": "2026-01-01T00:00:00Z"}}, status: 400})
	f.do(call{method: "POST", path: "/api/price/update", key: f.op, body: []any{}, status: 400, invalid: true})
}

// deletes runs last but one: the records above are gone after it.
func (f *oaFixture) deletes() {
	a := f.alice
	d := func(path string, id int64, status int) {
		f.do(call{method: "DELETE", path: fmt.Sprintf(path, id), key: a, status: status})
	}
	d("/api/domain/%d/delete", f.domain, 409) // f.other lives on it
	for _, p := range []string{"/api/url/%d/delete", "/api/domain/%d/delete", "/api/campaign/%d/delete", "/api/channel/%d/delete",
		"/api/overlay/%d/delete", "/api/splash/%d/delete", "/api/pixel/%d/delete", "/api/qr/%d/delete"} {
		d(p, missing, 404)
	}
	for _, c := range []struct {
		path string
		id   int64
	}{{"/api/url/%d/delete", f.other}, {"/api/url/%d/delete", f.link}, {"/api/domain/%d/delete", f.domain},
		{"/api/campaign/%d/delete", f.campaign}, {"/api/channel/%d/delete", f.channel}, {"/api/overlay/%d/delete", f.overlay},
		{"/api/splash/%d/delete", f.splash}, {"/api/pixel/%d/delete", f.pixel}, {"/api/qr/%d/delete", f.qr}} {
		d(c.path, c.id, 200)
	}
}

// noKey sends every keyed operation without a key: 401, and the
// document must call such a request invalid (its security needs a key).
func (f *oaFixture) noKey() {
	for path, item := range f.doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Security != nil && len(*op.Security) == 0 {
				continue // keyless
			}
			f.do(call{method: method, path: samplePath(path), status: 401, invalid: true})
		}
	}
	f.do(call{method: "GET", path: "/api/account", auth: "Basic YTpi", status: 401, invalid: true})
}

// limits drives a 429: a key allowed one request a minute.
func (f *oaFixture) limits() {
	one := 1
	_, key := f.e.user("limited", func(o *userOpt) { o.rateLimit = &one })
	awayFromWindowEdge()
	f.do(call{method: "GET", path: "/api/account", key: key, status: 200})
	r := f.do(call{method: "GET", path: "/api/account", key: key, status: 429})
	if r.Header.Get("Retry-After") == "" {
		f.t.Errorf("429 without Retry-After: %v", r.Header)
	}
}

// TestOpenAPIMethodsAndUnknownRoutes checks the answers no operation
// describes: every /api path answers a method it does not serve with 405,
// the error body and an Allow header naming exactly the document's
// methods; an unknown /api path is a 404 with the error body.
func TestOpenAPIMethodsAndUnknownRoutes(t *testing.T) {
	e := newEnv(t)
	d := newDocCheck(t, e)
	_, key := e.user("alice")
	for path, item := range d.doc.Paths.Map() {
		if !strings.HasPrefix(path, "/api/") {
			continue // the health checks are Go's mux's: a plain-text 405
		}
		ops := item.Operations()
		var allowed []string
		for m := range ops {
			allowed = append(allowed, m)
		}
		slices.Sort(allowed)
		other := http.MethodDelete
		if ops[other] != nil {
			other = http.MethodPatch
		}
		r := e.do(other, samplePath(path), key, nil)
		if r.Status != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: status %d, want 405", other, path, r.Status)
			continue
		}
		if got := r.Header.Get("Allow"); got != strings.Join(allowed, ", ") {
			t.Errorf("%s %s: Allow %q, want the documented %q", other, path, got, strings.Join(allowed, ", "))
		}
		if err := d.errorBody(r.Raw); err != nil {
			t.Errorf("%s %s: 405 body is not the documented Error: %v", other, path, err)
		}
	}
	for _, p := range []string{"/api", "/api/nope", "/api/url/1/nope", "/api/price/nope"} {
		r := e.do(http.MethodGet, p, key, nil)
		if r.Status != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", p, r.Status)
		}
		if err := d.errorBody(r.Raw); err != nil {
			t.Errorf("GET %s: 404 body is not the documented Error: %v", p, err)
		}
	}
}

// TestOpenAPIStatsUnavailable validates the answers while ClickHouse
// cannot be read: null numbers on the records, 503 on the chart.
func TestOpenAPIStatsUnavailable(t *testing.T) {
	e, _ := newFullEnv(t)
	d := newDocCheck(t, e)
	_, key := e.user("alice")
	link := d.id(d.do(call{method: "POST", path: "/api/url/add", key: key, body: map[string]any{"url": "https://example.com/"}, status: 200}))
	qr := d.id(d.do(call{method: "POST", path: "/api/qr/add", key: key, body: map[string]any{"type": "text", "data": "hi"}, status: 200}))
	deadStats(t, e)
	d.do(call{method: "GET", path: fmt.Sprintf("/api/url/%d", link), key: key, status: 200})
	d.do(call{method: "GET", path: fmt.Sprintf("/api/qr/%d", qr), key: key, status: 200})
	d.do(call{method: "GET", path: "/api/urls?with=uniqueClicks", key: key, status: 200})
	d.do(call{method: "GET", path: "/api/urls?order=click", key: key, status: 200})
	d.do(call{method: "GET", path: "/api/qr", key: key, status: 200})
	d.do(call{method: "GET", path: fmt.Sprintf("/api/url/%d/stats", link), key: key, status: 503})
}

// TestOpenAPIServed checks GET /api/openapi.json: keyless, the embedded
// document byte for byte, JSON.
func TestOpenAPIServed(t *testing.T) {
	e := newEnv(t)
	r := e.do(http.MethodGet, "/api/openapi.json", "", nil)
	r.wantStatus(t, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q", ct)
	}
	if string(r.Raw) != string(openAPIDoc) {
		t.Error("the served document is not the embedded openapi.json")
	}
	if r.Body["openapi"] != "3.1.0" {
		t.Errorf("openapi = %v", r.Body["openapi"])
	}
	e.do(http.MethodPost, "/api/openapi.json", "", nil).wantStatus(t, http.StatusMethodNotAllowed)
}

// TestOpenAPIReadyzDown validates the readiness answer of a server whose
// store does not answer.
func TestOpenAPIReadyzDown(t *testing.T) {
	st, dsn := pgtest.Store(t)
	cfg := &config.Config{BaseURL: "http://sho.rt", BaseHost: "sho.rt", AnonRateLimit: 1000, Secret: "test-secret"}
	e := startEnv(t, st, dsn, cfg)
	e.srv.ready = []Check{{Name: "clickhouse", Fn: func(context.Context) error { return errors.New("down") }}}
	newDocCheck(t, e).do(call{method: "GET", path: "/readyz", status: http.StatusServiceUnavailable})
}

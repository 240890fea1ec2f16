package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"kurz/shared/click"
	"kurz/shared/pgstore/pgtest"
)

// linkSQL runs a statement directly on the test database (fixtures the
// API under test does not create, and counters only analytics would set).
func linkSQL(t *testing.T, e *testEnv, sql string, args ...any) {
	t.Helper()
	if _, err := pgtest.Pool(e.store).Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// linkSQLID runs an INSERT … RETURNING id.
func linkSQLID(t *testing.T, e *testEnv, sql string, args ...any) int64 {
	t.Helper()
	var id int64
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), sql, args...).Scan(&id); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return id
}

func linkCount(t *testing.T, e *testEnv) int {
	t.Helper()
	var n int
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT count(*) FROM links`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// linkFixtures are records of one user that a link can point to.
type linkFixtures struct {
	domain, channel, splash, overlay, pixel1, pixel2 int64
}

func makeLinkFixtures(t *testing.T, e *testEnv, uid int64, host string) linkFixtures {
	t.Helper()
	return linkFixtures{
		domain:  linkSQLID(t, e, `INSERT INTO domains (user_id, host, domain) VALUES ($1, $2, 'https://' || $2) RETURNING id`, uid, host),
		channel: linkSQLID(t, e, `INSERT INTO channels (user_id, name) VALUES ($1, 'ch') RETURNING id`, uid),
		splash:  linkSQLID(t, e, `INSERT INTO splash_pages (user_id, name) VALUES ($1, 'sp') RETURNING id`, uid),
		overlay: linkSQLID(t, e, `INSERT INTO overlays (user_id, name) VALUES ($1, 'ov') RETURNING id`, uid),
		pixel1:  linkSQLID(t, e, `INSERT INTO pixels (user_id, type, name, tag) VALUES ($1, 'analyticspixel', 'p1', 'G-1') RETURNING id`, uid),
		pixel2:  linkSQLID(t, e, `INSERT INTO pixels (user_id, type, name, tag) VALUES ($1, 'shortvideo', 'p2', 'T-2') RETURNING id`, uid),
	}
}

// newShortLink creates a link and returns its id and short URL.
func (e *testEnv) newShortLink(t *testing.T, key string, body map[string]any) (int64, string) {
	t.Helper()
	r := e.do("POST", "/api/url/add", key, body).wantStatus(t, http.StatusOK)
	id, _ := r.Body["id"].(float64)
	short, _ := r.Body["shorturl"].(string)
	if id <= 0 || short == "" {
		t.Fatalf("add response %s", r.Raw)
	}
	return int64(id), short
}

func (e *testEnv) shortLinkDetails(t *testing.T, key string, id int64) map[string]any {
	t.Helper()
	r := e.do("GET", fmt.Sprintf("/api/url/%d", id), key, nil).wantStatus(t, http.StatusOK)
	d, ok := r.Body["details"].(map[string]any)
	if !ok {
		t.Fatalf("no details in %s", r.Raw)
	}
	return d
}

var randomAliasRe = regexp.MustCompile(`^[0-9A-Za-z]{5,8}$`)

func TestLinkAddAndGetShape(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	r := e.do("POST", "/api/url/add", key, map[string]any{"url": "https://example.com/page?a=1"}).wantStatus(t, http.StatusOK)
	wantKeys(t, r.Body, map[string]string{"error": "number", "id": "number", "shorturl": "string", "short": "string"})
	if r.Body["error"] != float64(0) || len(r.Body) != 4 || r.Body["short"] != r.Body["shorturl"] {
		t.Errorf("add body %s", r.Raw)
	}
	short := r.Body["shorturl"].(string)
	alias, ok := strings.CutPrefix(short, "http://sho.rt/")
	if !ok || !randomAliasRe.MatchString(alias) || len(alias) != 5 {
		t.Errorf("shorturl %q: want http://sho.rt/ + 5 base62 characters", short)
	}
	id := int64(r.Body["id"].(float64))

	g := e.do("GET", fmt.Sprintf("/api/url/%d", id), key, nil).wantStatus(t, http.StatusOK)
	wantKeys(t, g.Body, map[string]string{"error": "number", "id": "number", "details": "object", "data": "object"})
	d := g.Body["details"].(map[string]any)
	wantKeys(t, d, map[string]string{
		"id": "number", "shorturl": "string", "longurl": "string", "title": "string", "description": "string",
		"location": "object", "device": "object", "expiry": "null", "date": "string",
		"alias": "string", "domain": "string", "type": "string", "status": "string", "channel": "number",
		"campaign": "number", "pixels": "array", "languagetarget": "array", "deeplink": "object",
		"parameters": "array", "metatitle": "string", "metadescription": "string", "metaimage": "string", "password": "bool",
	})
	if d["shorturl"] != short || d["longurl"] != "https://example.com/page?a=1" || d["alias"] != alias ||
		d["type"] != "direct" || d["status"] != "private" || d["password"] != false || d["title"] != "" {
		t.Errorf("details %v", d)
	}
	if !specTime.MatchString(d["date"].(string)) {
		t.Errorf("date %v", d["date"])
	}
	if !strings.Contains(string(g.Raw), `"location":{}`) || !strings.Contains(string(g.Raw), `"device":{}`) ||
		!strings.Contains(string(g.Raw), `"pixels":[]`) || !strings.Contains(string(g.Raw), `"parameters":[]`) {
		t.Errorf("empty collections must be {} / []: %s", g.Raw)
	}
	wantData := map[string]any{"clicks": float64(0), "uniqueClicks": float64(0), "topCountries": float64(0),
		"topReferrers": float64(0), "topBrowsers": float64(0), "topOs": float64(0),
		"socialCount": map[string]any{"socialnetwork": float64(0), "microblog": float64(0), "searchengine": float64(0)}}
	if !reflect.DeepEqual(g.Body["data"], wantData) {
		t.Errorf("data = %v", g.Body["data"])
	}
}

// TestLinkRoundTrip writes every field and reads each back.
func TestLinkRoundTrip(t *testing.T) {
	e := newEnv(t)
	uid, key := e.user("alice")
	fx := makeLinkFixtures(t, e, uid, "go.alice.example")
	body := map[string]any{
		"url":             "https://example.com/landing",
		"custom":          "Spring-Sale_1",
		"type":            fmt.Sprintf("splash-%d", fx.splash),
		"password":        "s3cret pass",
		"domain":          "https://go.alice.example",
		"expiry":          "2099-12-31 23:59:59",
		"geotarget":       []map[string]string{{"location": "Germany", "link": "https://de.example.com/"}, {"location": "us", "link": "https://us.example.com/"}},
		"devicetarget":    []map[string]string{{"device": "iPhone", "link": "https://ios.example.com/"}, {"device": "Windows-Phone", "link": "https://wp.example.com/"}},
		"languagetarget":  []map[string]string{{"language": "en_us", "link": "https://en.example.com/"}, {"language": "FR", "link": "https://fr.example.com/"}},
		"metatitle":       "Spring sale",
		"metadescription": "Everything must go.\nReally.",
		"metaimage":       "https://cdn.example.com/p/sale.JPG",
		"description":     "internal note",
		"pixels":          []int64{fx.pixel2, fx.pixel1},
		"channel":         fx.channel,
		"deeplink":        map[string]string{"ios_store": "https://apps.example.com/id1", "android_store": "https://play.example.com/x"},
		"status":          "public",
		"parameters":      []map[string]string{{"name": "utm_source", "value": "news letter"}, {"name": "ref", "value": "a&b"}},
	}
	id, short := e.newShortLink(t, key, body)
	if short != "https://go.alice.example/Spring-Sale_1" {
		t.Errorf("shorturl %q", short)
	}
	d := e.shortLinkDetails(t, key, id)
	want := map[string]any{
		"shorturl": short, "longurl": "https://example.com/landing", "title": "Spring sale",
		"description": "internal note", "expiry": "2099-12-31 23:59:59",
		"location":       map[string]any{"germany": "https://de.example.com/", "united states": "https://us.example.com/"},
		"device":         map[string]any{"iphone": "https://ios.example.com/", "windows phone": "https://wp.example.com/"},
		"alias":          "Spring-Sale_1",
		"domain":         "https://go.alice.example",
		"type":           fmt.Sprintf("splash-%d", fx.splash),
		"status":         "public",
		"channel":        float64(fx.channel),
		"campaign":       float64(0),
		"pixels":         []any{float64(min(fx.pixel1, fx.pixel2)), float64(max(fx.pixel1, fx.pixel2))},
		"languagetarget": []any{map[string]any{"language": "en-US", "link": "https://en.example.com/"}, map[string]any{"language": "fr", "link": "https://fr.example.com/"}},
		"deeplink":       map[string]any{"ios_store": "https://apps.example.com/id1", "android_store": "https://play.example.com/x"},
		"parameters":     []any{map[string]any{"name": "utm_source", "value": "news letter"}, map[string]any{"name": "ref", "value": "a&b"}},
		"metatitle":      "Spring sale", "metadescription": "Everything must go.\nReally.",
		"metaimage": "https://cdn.example.com/p/sale.JPG", "password": true,
	}
	for k, v := range want {
		if !reflect.DeepEqual(d[k], v) {
			t.Errorf("details.%s = %#v, want %#v", k, d[k], v)
		}
	}
	// Stored canonical forms the edge reads, and a hash, never the password.
	var geo, dev, hash string
	err := pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT geo_targets::text, device_targets::text, password_hash FROM links WHERE id = $1`, id).Scan(&geo, &dev, &hash)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(geo, `"DE"`) || !strings.Contains(geo, `"US"`) || !strings.Contains(dev, `"windows phone"`) {
		t.Errorf("stored targets %s %s", geo, dev)
	}
	if !strings.HasPrefix(hash, "$argon2id$") || strings.Contains(hash, "s3cret") {
		t.Errorf("password stored as %q", hash)
	}

	// The overlay form of type round-trips too.
	id2, _ := e.newShortLink(t, key, map[string]any{"url": "https://example.com/2", "type": fmt.Sprintf("overlay-%d", fx.overlay)})
	if got := e.shortLinkDetails(t, key, id2)["type"]; got != fmt.Sprintf("overlay-%d", fx.overlay) {
		t.Errorf("type %v", got)
	}
}

func TestLinkAddValidation(t *testing.T) {
	e := newEnv(t)
	uid, key := e.user("alice")
	buid, _ := e.user("bob")
	fx := makeLinkFixtures(t, e, uid, "go.alice.example")
	bfx := makeLinkFixtures(t, e, buid, "go.bob.example")
	long := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name   string
		body   any
		status int
		parts  []string
	}{
		{"no url", map[string]any{}, 400, []string{"url", "required"}},
		{"empty url", map[string]any{"url": " "}, 400, []string{"url", "required"}},
		{"url not string", `{"url": 5}`, 400, []string{"url"}},
		{"javascript", map[string]any{"url": "javascript:alert(1)"}, 400, []string{"url", "http or https"}},
		{"data", map[string]any{"url": "data:text/html,x"}, 400, []string{"url"}},
		{"file", map[string]any{"url": "file:///etc/passwd"}, 400, []string{"url"}},
		{"vbscript", map[string]any{"url": "vbscript:x"}, 400, []string{"url"}},
		{"control", map[string]any{"url": "https://example.com/\r\nX: y"}, 400, []string{"url", "control"}},
		{"loop base host", map[string]any{"url": "http://SHO.RT/abc"}, 400, []string{"url: must not point to a short link of this service (redirect loop)"}},
		{"loop base host https", map[string]any{"url": "https://sho.rt:443/abc"}, 400, []string{"url", "redirect loop"}},
		{"loop own branded", map[string]any{"url": "https://go.alice.example/x"}, 400, []string{"url", "redirect loop"}},
		{"loop own branded default port", map[string]any{"url": "http://go.alice.example:80/x"}, 400, []string{"url", "redirect loop"}},
		{"custom short", map[string]any{"url": "https://e.com", "custom": "ab"}, 400, []string{"custom", "3 to 64"}},
		{"custom chars", map[string]any{"url": "https://e.com", "custom": "a b/c"}, 400, []string{"custom", "letters, digits"}},
		{"custom long", map[string]any{"url": "https://e.com", "custom": long(65)}, 400, []string{"custom"}},
		{"custom reserved", map[string]any{"url": "https://e.com", "custom": "healthz"}, 400, []string{"custom", "reserved"}},
		{"custom reserved api", map[string]any{"url": "https://e.com", "custom": "API"}, 400, []string{"custom", "reserved"}},
		{"type", map[string]any{"url": "https://e.com", "type": "popup"}, 400, []string{"type", "direct, frame"}},
		{"type id garbage", map[string]any{"url": "https://e.com", "type": "splash-x"}, 400, []string{"type"}},
		{"type other's splash", map[string]any{"url": "https://e.com", "type": fmt.Sprintf("splash-%d", bfx.splash)}, 400, []string{"type", "not one of your"}},
		{"type other's overlay", map[string]any{"url": "https://e.com", "type": fmt.Sprintf("overlay-%d", bfx.overlay)}, 400, []string{"type", "not one of your"}},
		{"type missing splash", map[string]any{"url": "https://e.com", "type": "splash-999999"}, 400, []string{"type"}},
		{"password long", map[string]any{"url": "https://e.com", "password": long(1025)}, 400, []string{"password"}},
		{"domain other's", map[string]any{"url": "https://e.com", "domain": "https://go.bob.example"}, 400, []string{"domain", "not one of your domains"}},
		{"domain unknown", map[string]any{"url": "https://e.com", "domain": "nope.example"}, 400, []string{"domain"}},
		{"domain garbage", map[string]any{"url": "https://e.com", "domain": "https://x.example/path"}, 400, []string{"domain"}},
		{"expiry format", map[string]any{"url": "https://e.com", "expiry": "2099/01/01"}, 400, []string{"expiry", "YYYY-MM-DD HH:MM:SS"}},
		{"expiry past", map[string]any{"url": "https://e.com", "expiry": "2001-01-01 00:00:00"}, 400, []string{"expiry", "future"}},
		{"geo country", map[string]any{"url": "https://e.com", "geotarget": []map[string]string{{"location": "de", "link": "https://a.com"}, {"location": "atlantis", "link": "https://b.com"}}}, 400, []string{"geotarget[1].location", "unknown country"}},
		{"geo duplicate", map[string]any{"url": "https://e.com", "geotarget": []map[string]string{{"location": "de", "link": "https://a.com"}, {"location": "Germany", "link": "https://b.com"}}}, 400, []string{"geotarget[1].location", "duplicate"}},
		{"geo link", map[string]any{"url": "https://e.com", "geotarget": []map[string]string{{"location": "de", "link": "javascript:x"}}}, 400, []string{"geotarget[0].link"}},
		{"geo link empty", map[string]any{"url": "https://e.com", "geotarget": []map[string]string{{"location": "de"}}}, 400, []string{"geotarget[0].link"}},
		{"geo link loop", map[string]any{"url": "https://e.com", "geotarget": []map[string]string{{"location": "de", "link": "https://go.alice.example/x"}}}, 400, []string{"geotarget[0].link", "redirect loop"}},
		{"device", map[string]any{"url": "https://e.com", "devicetarget": []map[string]string{{"device": "toaster", "link": "https://a.com"}}}, 400, []string{"devicetarget[0].device", "unknown device"}},
		{"device link loop", map[string]any{"url": "https://e.com", "devicetarget": []map[string]string{{"device": "android", "link": "http://sho.rt/x"}}}, 400, []string{"devicetarget[0].link", "redirect loop"}},
		{"language", map[string]any{"url": "https://e.com", "languagetarget": []map[string]string{{"language": "not a tag!", "link": "https://a.com"}}}, 400, []string{"languagetarget[0].language"}},
		{"targets not array", `{"url":"https://e.com","geotarget":{"location":"de"}}`, 400, []string{"geotarget"}},
		{"metatitle", map[string]any{"url": "https://e.com", "metatitle": long(201)}, 400, []string{"metatitle", "200"}},
		{"metatitle control", map[string]any{"url": "https://e.com", "metatitle": "a\x00b"}, 400, []string{"metatitle", "control"}},
		{"metadescription", map[string]any{"url": "https://e.com", "metadescription": long(501)}, 400, []string{"metadescription", "500"}},
		{"metaimage gif", map[string]any{"url": "https://e.com", "metaimage": "https://cdn.example.com/a.gif"}, 400, []string{"metaimage", ".png"}},
		{"metaimage scheme", map[string]any{"url": "https://e.com", "metaimage": "file:///a.png"}, 400, []string{"metaimage"}},
		{"description", map[string]any{"url": "https://e.com", "description": long(501)}, 400, []string{"description", "500"}},
		{"pixels other's", map[string]any{"url": "https://e.com", "pixels": []int64{fx.pixel1, bfx.pixel1}}, 400, []string{fmt.Sprintf("pixels: %d is not one of your pixels", bfx.pixel1)}},
		{"pixels missing", map[string]any{"url": "https://e.com", "pixels": []int64{987654}}, 400, []string{"pixels: 987654"}},
		{"pixels negative", map[string]any{"url": "https://e.com", "pixels": []int64{-1}}, 400, []string{"pixels"}},
		{"pixels strings", `{"url":"https://e.com","pixels":["a"]}`, 400, []string{"pixels"}},
		{"channel other's", map[string]any{"url": "https://e.com", "channel": bfx.channel}, 400, []string{"channel", "not one of your channels"}},
		{"channel negative", map[string]any{"url": "https://e.com", "channel": -3}, 400, []string{"channel"}},
		{"deeplink http", map[string]any{"url": "https://e.com", "deeplink": map[string]string{"ios_store": "http://apps.example.com/"}}, 400, []string{"deeplink.ios_store", "https"}},
		{"deeplink loop", map[string]any{"url": "https://e.com", "deeplink": map[string]string{"android_store": "https://sho.rt/x"}}, 400, []string{"deeplink.android_store", "redirect loop"}},
		{"status", map[string]any{"url": "https://e.com", "status": "secret"}, 400, []string{"status", "public or private"}},
		{"parameters count", map[string]any{"url": "https://e.com", "parameters": func() []map[string]string {
			ps := make([]map[string]string, 21)
			for i := range ps {
				ps[i] = map[string]string{"name": fmt.Sprintf("p%d", i), "value": "v"}
			}
			return ps
		}()}, 400, []string{"parameters", "20"}},
		{"parameter name", map[string]any{"url": "https://e.com", "parameters": []map[string]string{{"name": "a=b", "value": "v"}}}, 400, []string{"parameters[0].name"}},
		{"parameter value", map[string]any{"url": "https://e.com", "parameters": []map[string]string{{"name": "a", "value": long(501)}}}, 400, []string{"parameters[0].value"}},
		{"malformed", `{"url":`, 400, []string{"malformed JSON"}},
		{"not json", "url=x", 400, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/api/url/add", key, tt.body).wantStatus(t, tt.status)
			r.wantMessage(t, tt.parts...)
		})
	}
	if n := linkCount(t, e); n != 0 {
		t.Errorf("%d links written by failed requests", n)
	}
	var lp int
	_ = pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT count(*) FROM link_pixels`).Scan(&lp)
	if lp != 0 {
		t.Errorf("%d link_pixels rows written by failed requests", lp)
	}
}

func TestLinkCustomAlias(t *testing.T) {
	e := newEnv(t)
	uid, key := e.user("alice")
	_, bkey := e.user("bob")
	makeLinkFixtures(t, e, uid, "go.alice.example")

	e.newShortLink(t, key, map[string]any{"url": "https://e.com/1", "custom": "promo"})
	e.do("POST", "/api/url/add", key, map[string]any{"url": "https://e.com/2", "custom": "promo"}).
		wantStatus(t, http.StatusConflict).wantMessage(t, "custom: alias already taken")
	// The default domain is shared by every user.
	e.do("POST", "/api/url/add", bkey, map[string]any{"url": "https://e.com/3", "custom": "promo"}).
		wantStatus(t, http.StatusConflict).wantMessage(t, "custom: alias already taken")
	// Unique per host; aliases are case-sensitive.
	_, s1 := e.newShortLink(t, key, map[string]any{"url": "https://e.com/4", "custom": "promo", "domain": "go.alice.example"})
	_, s2 := e.newShortLink(t, key, map[string]any{"url": "https://e.com/5", "custom": "Promo"})
	if s1 != "https://go.alice.example/promo" || s2 != "http://sho.rt/Promo" {
		t.Errorf("short urls %q %q", s1, s2)
	}
	// Naming the default domain explicitly is the default domain.
	e.do("POST", "/api/url/add", key, map[string]any{"url": "https://e.com/6", "custom": "promo", "domain": "http://sho.rt"}).
		wantStatus(t, http.StatusConflict)
	if n := linkCount(t, e); n != 3 {
		t.Errorf("%d links, want 3", n)
	}
}

// TestLinkRandomAliasConcurrent adds links in parallel: every alias is a
// distinct base62 string, none reserved, and no request fails.
func TestLinkRandomAliasConcurrent(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	const n = 50
	var wg sync.WaitGroup
	shorts := make(chan string, n)
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := strings.NewReader(fmt.Sprintf(`{"url":"https://example.com/%d"}`, i))
			req, _ := http.NewRequest("POST", e.http.URL+"/api/url/add", body)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+key)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err
				return
			}
			defer res.Body.Close()
			var out struct {
				Error    int    `json:"error"`
				ShortURL string `json:"shorturl"`
			}
			if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != 200 || out.Error != 0 {
				errs <- fmt.Errorf("status %d, %v, %+v", res.StatusCode, err, out)
				return
			}
			shorts <- out.ShortURL
		}()
	}
	wg.Wait()
	close(shorts)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	seen := map[string]bool{}
	for s := range shorts {
		alias := strings.TrimPrefix(s, "http://sho.rt/")
		if !randomAliasRe.MatchString(alias) || seen[alias] {
			t.Errorf("alias %q bad or repeated", alias)
		}
		seen[alias] = true
	}
	if len(seen) != n || linkCount(t, e) != n {
		t.Errorf("%d distinct aliases, %d links; want %d", len(seen), linkCount(t, e), n)
	}
}

func TestLinkUpdatePartial(t *testing.T) {
	e := newEnv(t)
	uid, key := e.user("alice")
	fx := makeLinkFixtures(t, e, uid, "go.alice.example")
	full := map[string]any{
		"url": "https://example.com/a", "custom": "keepme", "type": "frame", "password": "pw",
		"expiry": "2099-01-01 00:00:00", "metatitle": "T", "metadescription": "D", "metaimage": "https://c.example/i.png",
		"description": "note", "pixels": []int64{fx.pixel1}, "channel": fx.channel, "status": "public",
		"geotarget":  []map[string]string{{"location": "fr", "link": "https://fr.example/"}},
		"parameters": []map[string]string{{"name": "a", "value": "1"}},
		"deeplink":   map[string]string{"ios_store": "https://apps.example/1"},
	}
	id, _ := e.newShortLink(t, key, full)
	before := e.shortLinkDetails(t, key, id)
	path := fmt.Sprintf("/api/url/%d/update", id)

	// One field changes.
	r := e.do("PUT", path, key, map[string]any{"metatitle": "New"}).wantStatus(t, http.StatusOK)
	wantKeys(t, r.Body, map[string]string{"error": "number", "id": "number", "short": "string"})
	if r.Body["short"] != "http://sho.rt/keepme" || r.Body["id"] != float64(id) || len(r.Body) != 3 {
		t.Errorf("update body %s", r.Raw)
	}
	after := e.shortLinkDetails(t, key, id)
	for k, v := range before {
		switch k {
		case "metatitle", "title":
			if after[k] != "New" {
				t.Errorf("%s = %v", k, after[k])
			}
		default:
			if !reflect.DeepEqual(after[k], v) {
				t.Errorf("%s changed: %v -> %v", k, v, after[k])
			}
		}
	}

	// Clearing: expiry "", password "", channel 0, pixels [], metaimage "", deeplink "".
	e.do("PUT", path, key, map[string]any{"expiry": "", "password": "", "channel": 0, "pixels": []int64{},
		"metaimage": "", "deeplink": map[string]string{"ios_store": ""}, "geotarget": []any{}}).wantStatus(t, http.StatusOK)
	d := e.shortLinkDetails(t, key, id)
	if d["expiry"] != nil || d["password"] != false || d["channel"] != float64(0) || len(d["pixels"].([]any)) != 0 ||
		d["metaimage"] != "" || d["deeplink"].(map[string]any)["ios_store"] != "" || len(d["location"].(map[string]any)) != 0 {
		t.Errorf("not cleared: %v", d)
	}
	if d["longurl"] != "https://example.com/a" || d["metadescription"] != "D" || d["type"] != "frame" {
		t.Errorf("unsent fields changed: %v", d)
	}

	// New url, alias, domain, type, pixels and a password.
	r = e.do("PUT", path, key, map[string]any{"url": "https://example.com/b", "custom": "moved", "domain": "go.alice.example",
		"type": fmt.Sprintf("overlay-%d", fx.overlay), "pixels": []int64{fx.pixel2, fx.pixel1}, "password": "new"}).wantStatus(t, http.StatusOK)
	if r.Body["short"] != "https://go.alice.example/moved" {
		t.Errorf("short %v", r.Body["short"])
	}
	d = e.shortLinkDetails(t, key, id)
	if d["longurl"] != "https://example.com/b" || d["alias"] != "moved" || d["type"] != fmt.Sprintf("overlay-%d", fx.overlay) ||
		len(d["pixels"].([]any)) != 2 || d["password"] != true || d["domain"] != "https://go.alice.example" {
		t.Errorf("after update: %v", d)
	}
	// Back to the default domain.
	r = e.do("PUT", path, key, map[string]any{"domain": ""}).wantStatus(t, http.StatusOK)
	if r.Body["short"] != "http://sho.rt/moved" {
		t.Errorf("short %v", r.Body["short"])
	}

	// Validation on update, and nothing half-written.
	other, _ := e.newShortLink(t, key, map[string]any{"url": "https://example.com/c", "custom": "taken1"})
	_ = other
	e.do("PUT", path, key, map[string]any{"custom": "taken1"}).wantStatus(t, http.StatusConflict).wantMessage(t, "custom: alias already taken")
	e.do("PUT", path, key, map[string]any{"url": "javascript:x"}).wantStatus(t, http.StatusBadRequest).wantMessage(t, "url")
	e.do("PUT", path, key, map[string]any{"expiry": "1999-01-01 00:00:00"}).wantStatus(t, http.StatusBadRequest).wantMessage(t, "expiry")
	e.do("PUT", path, key, map[string]any{"metatitle": "X", "pixels": []int64{99999}}).wantStatus(t, http.StatusBadRequest).wantMessage(t, "pixels: 99999")
	e.do("PUT", path, key, map[string]any{"metatitle": "X", "custom": "taken1"}).wantStatus(t, http.StatusConflict)
	if got := e.shortLinkDetails(t, key, id); got["metatitle"] != "New" || got["alias"] != "moved" {
		t.Errorf("failed update wrote: %v", got)
	}
	e.do("PUT", path, key, "{}").wantStatus(t, http.StatusOK)
}

func TestLinkListOrderAndPaging(t *testing.T) {
	e, conn := newStatsEnv(t)
	alice, key := e.user("alice")
	_, bkey := e.user("bob")
	ids := make([]int64, 3)
	for i := range ids {
		ids[i], _ = e.newShortLink(t, key, map[string]any{"url": fmt.Sprintf("https://example.com/%d", i), "metatitle": fmt.Sprintf("t%d", i), "description": "d"})
	}
	// Distinct creation times (oldest first) and clicks: 1 has most, 0 and 2 tie.
	for i, id := range ids {
		linkSQL(t, e, `UPDATE links SET created_at = '2026-01-01 00:00:00+00'::timestamptz + make_interval(hours => $2) WHERE id = $1`, id, i)
	}
	human := hit{kind: click.KindLink, class: click.ClassHuman, visitor: 1, country: "DE"}
	for i, n := range []int{2, 7, 2} {
		insertOwnerHits(t, conn, alice, ids[i], slices.Repeat([]hit{human}, n))
	}
	// A bot's visits count for nothing, also in the order.
	insertOwnerHits(t, conn, alice, ids[0], slices.Repeat([]hit{{kind: click.KindLink, class: click.ClassBot, visitor: 2}}, 9))

	idsOf := func(items []any) []int64 {
		var out []int64
		for _, it := range items {
			out = append(out, int64(it.(map[string]any)["id"].(float64)))
		}
		return out
	}
	items := e.do("GET", "/api/urls", key, nil).list(t, "urls")
	if got := idsOf(items); !reflect.DeepEqual(got, []int64{ids[2], ids[1], ids[0]}) {
		t.Errorf("default order %v", got)
	}
	row := items[0].(map[string]any)
	wantKeys(t, row, map[string]string{"id": "number", "alias": "string", "shorturl": "string", "longurl": "string",
		"clicks": "number", "title": "string", "description": "string", "date": "string", "campaign": "number"})
	if len(row) != 9 || row["clicks"] != float64(2) || row["title"] != "t2" || row["description"] != "d" ||
		row["date"] != "2026-01-01 02:00:00" || row["shorturl"] != "http://sho.rt/"+row["alias"].(string) {
		t.Errorf("row %v", row)
	}
	if got := idsOf(e.do("GET", "/api/urls?order=date", key, nil).list(t, "urls")); !reflect.DeepEqual(got, []int64{ids[2], ids[1], ids[0]}) {
		t.Errorf("order=date %v", got)
	}
	if got := idsOf(e.do("GET", "/api/urls?order=click", key, nil).list(t, "urls")); !reflect.DeepEqual(got, []int64{ids[1], ids[2], ids[0]}) {
		t.Errorf("order=click %v", got)
	}
	e.do("GET", "/api/urls?order=random", key, nil).wantStatus(t, http.StatusBadRequest).wantMessage(t, "order")
	e.do("GET", "/api/urls?limit=0", key, nil).wantStatus(t, http.StatusBadRequest).wantMessage(t, "limit")

	pages := []struct {
		q                      string
		n, next, maxp, current int
	}{
		{"limit=2&page=1", 2, 2, 2, 1},
		{"limit=2&page=2", 1, 0, 2, 2},
		{"limit=2&page=3", 0, 0, 2, 3},
	}
	for _, p := range pages {
		r := e.do("GET", "/api/urls?"+p.q, key, nil)
		items := r.list(t, "urls")
		d := r.data(t)
		if len(items) != p.n || d["nextpage"] != float64(p.next) || d["maxpage"] != float64(p.maxp) ||
			d["result"] != float64(3) || d["perpage"] != float64(2) || d["currentpage"] != float64(p.current) {
			t.Errorf("%s: %d items, data %v", p.q, len(items), d)
		}
	}
	// Isolation: bob sees none of alice's links.
	r := e.do("GET", "/api/urls", bkey, nil)
	if items := r.list(t, "urls"); len(items) != 0 || r.data(t)["result"] != float64(0) || r.data(t)["maxpage"] != float64(1) {
		t.Errorf("bob's list %s", r.Raw)
	}
}

func TestLinkShortSearch(t *testing.T) {
	e := newEnv(t)
	uid, key := e.user("alice")
	_, bkey := e.user("bob")
	makeLinkFixtures(t, e, uid, "go.alice.example")
	idDef, _ := e.newShortLink(t, key, map[string]any{"url": "https://example.com/1", "custom": "hello"})
	idBr, _ := e.newShortLink(t, key, map[string]any{"url": "https://example.com/2", "custom": "hello", "domain": "go.alice.example"})
	idOnly, _ := e.newShortLink(t, key, map[string]any{"url": "https://example.com/3", "custom": "branded-only", "domain": "go.alice.example"})

	tests := []struct {
		short string
		want  int64
	}{
		{"http://sho.rt/hello", idDef},
		{"https://SHO.RT/hello", idDef},
		{"sho.rt/hello", idDef},
		{"https://go.alice.example/hello", idBr},
		{"https://go.alice.example:443/hello/", idBr},
		{"https://go.alice.example:0443/hello", idBr},
		{"https://sho.rt:/hello", idDef},
		{"http://sho.rt:00080/hello", idDef},
		{"https://ｇｏ.alice.example/hello", idBr},
		{"hello", idDef},
		{"branded-only", idOnly},
		{"https://go.alice.example/branded-only?utm=x", idOnly},
	}
	for _, tt := range tests {
		t.Run(tt.short, func(t *testing.T) {
			// order is ignored when short is present, even when invalid.
			r := e.do("GET", "/api/urls?order=bogus&limit=0&short="+urlQueryEscape(tt.short), key, nil).wantStatus(t, http.StatusOK)
			if r.Body["id"] != float64(tt.want) || r.Body["error"] != float64(0) {
				t.Errorf("found %s, want id %d", r.Raw, tt.want)
			}
			if _, ok := r.Body["details"].(map[string]any); !ok {
				t.Errorf("not a single-link response: %s", r.Raw)
			}
		})
	}
	for _, miss := range []string{"http://sho.rt/nope", "nope", "", "http://sho.rt/branded-only", "https://other.example/hello", "http://sho.rt/a/b", "javascript:alert(1)"} {
		e.do("GET", "/api/urls?short="+urlQueryEscape(miss), key, nil).wantStatus(t, http.StatusNotFound).wantMessage(t, "link not found")
	}
	// Bob cannot find alice's link by its short URL.
	e.do("GET", "/api/urls?short="+urlQueryEscape("http://sho.rt/hello"), bkey, nil).wantStatus(t, http.StatusNotFound)
}

func urlQueryEscape(s string) string {
	r := strings.NewReplacer("%", "%25", "&", "%26", "?", "%3F", "#", "%23", "+", "%2B", " ", "%20", "=", "%3D")
	return r.Replace(s)
}

func TestLinkIsolation(t *testing.T) {
	e := newEnv(t)
	auid, akey := e.user("alice")
	buid, bkey := e.user("bob")
	afx := makeLinkFixtures(t, e, auid, "go.alice.example")
	makeLinkFixtures(t, e, buid, "go.bob.example")
	id, _ := e.newShortLink(t, akey, map[string]any{"url": "https://example.com/a", "metatitle": "mine"})
	p := fmt.Sprintf("/api/url/%d", id)
	e.do("GET", p, bkey, nil).wantStatus(t, http.StatusNotFound).wantMessage(t, "link not found")
	e.do("PUT", p+"/update", bkey, map[string]any{"metatitle": "stolen"}).wantStatus(t, http.StatusNotFound).wantMessage(t, "link not found")
	e.do("DELETE", p+"/delete", bkey, nil).wantStatus(t, http.StatusNotFound).wantMessage(t, "link not found")
	if d := e.shortLinkDetails(t, akey, id); d["metatitle"] != "mine" {
		t.Errorf("bob changed alice's link: %v", d)
	}
	// Bob's own link cannot use alice's records.
	bid, _ := e.newShortLink(t, bkey, map[string]any{"url": "https://example.com/b"})
	bp := fmt.Sprintf("/api/url/%d/update", bid)
	steal := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"pixels": []int64{afx.pixel1}}, "pixels"},
		{map[string]any{"channel": afx.channel}, "channel"},
		{map[string]any{"domain": "https://go.alice.example"}, "domain"},
		{map[string]any{"type": fmt.Sprintf("splash-%d", afx.splash)}, "type"},
		{map[string]any{"type": fmt.Sprintf("overlay-%d", afx.overlay)}, "type"},
	}
	for _, s := range steal {
		e.do("PUT", bp, bkey, s.body).wantStatus(t, http.StatusBadRequest).wantMessage(t, s.field, "not one of your")
		add := map[string]any{"url": "https://example.com/x"}
		for k, v := range s.body {
			add[k] = v
		}
		e.do("POST", "/api/url/add", bkey, add).wantStatus(t, http.StatusBadRequest).wantMessage(t, s.field, "not one of your")
	}
	// Garbage and unknown ids look exactly like someone else's.
	for _, bad := range []string{"0", "-1", "abc", "1e3", "99999999", "+1", "99999999999999999999"} {
		e.do("GET", "/api/url/"+bad, akey, nil).wantStatus(t, http.StatusNotFound).wantMessage(t, "link not found")
		e.do("PUT", "/api/url/"+bad+"/update", akey, map[string]any{}).wantStatus(t, http.StatusNotFound)
		e.do("DELETE", "/api/url/"+bad+"/delete", akey, nil).wantStatus(t, http.StatusNotFound)
	}
}

func TestLinkDelete(t *testing.T) {
	e := newEnv(t)
	uid, key := e.user("alice")
	fx := makeLinkFixtures(t, e, uid, "go.alice.example")
	id, _ := e.newShortLink(t, key, map[string]any{"url": "https://example.com/a", "pixels": []int64{fx.pixel1}})
	r := e.do("DELETE", fmt.Sprintf("/api/url/%d/delete", id), key, nil).wantStatus(t, http.StatusOK)
	wantKeys(t, r.Body, map[string]string{"error": "number", "message": "string"})
	e.do("GET", fmt.Sprintf("/api/url/%d", id), key, nil).wantStatus(t, http.StatusNotFound)
	e.do("DELETE", fmt.Sprintf("/api/url/%d/delete", id), key, nil).wantStatus(t, http.StatusNotFound)
	var n int
	_ = pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT count(*) FROM link_pixels WHERE link_id = $1`, id).Scan(&n)
	if n != 0 {
		t.Errorf("%d pixel rows left", n)
	}
	e.do("GET", "/api/url/add", key, nil).wantStatus(t, http.StatusMethodNotAllowed)
	e.do("POST", fmt.Sprintf("/api/url/%d", id), key, nil).wantStatus(t, http.StatusMethodNotAllowed)
}

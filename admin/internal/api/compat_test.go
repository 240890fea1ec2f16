package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"kurz/shared/config"
)

// Tests of what existing clients of this API send and expect
// (docs/api.md "Compatibility").

// strictEnvelope decodes a body the way strict clients do: "error" must
// be the integer 0 (a string "0" fails to decode into an int).
func strictEnvelope(t *testing.T, what string, r response) {
	t.Helper()
	var env struct {
		Error *int `json:"error"`
	}
	if err := json.Unmarshal(r.Raw, &env); err != nil || env.Error == nil || *env.Error != 0 {
		t.Errorf("%s: a strict client reads error != 0 (err %v) in %s", what, err, r.Raw)
	}
}

func TestStrictClientReadsEveryList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.user("alice")
	// One record of each kind, so no list is trivially empty.
	wantID(t, e.do("POST", "/api/domain/add", key, map[string]any{"domain": "https://go.strict.example"}))
	wantID(t, e.do("POST", "/api/overlay/add", key, map[string]any{"name": "o"}))
	wantID(t, e.do("POST", "/api/splash/add", key, map[string]any{"name": "s"}))
	wantID(t, e.do("POST", "/api/campaign/add", key, map[string]any{"name": "c"}))
	ch := wantID(t, e.do("POST", "/api/channel/add", key, map[string]any{"name": "ch"}))
	lid, _ := e.newShortLink(t, key, map[string]any{"url": "https://example.com/strict"})
	e.do("POST", fmt.Sprintf("/api/channel/%d/assign/links/%d", ch, lid), key, nil).wantStatus(t, http.StatusOK)
	wantID(t, e.do("POST", "/api/pixel/add", key, map[string]any{"type": "analyticspixel", "name": "p", "tag": "G-1"}))
	e.addQRCode(t, key, map[string]any{"type": "text", "data": "hello"})
	wantID(t, e.do("POST", "/api/bio/add", key, map[string]any{"alias": "strict-bio"}))

	lists := []struct{ path, key string }{
		{"/api/domains", "domains"},
		{"/api/overlay", "cta"},
		{"/api/splash", "splash"},
		{"/api/campaigns", "campaigns"},
		{"/api/channels", "channels"},
		{fmt.Sprintf("/api/channel/%d", ch), "items"},
		{"/api/urls", "urls"},
		{"/api/urls?order=click", "urls"},
		{"/api/pixels", "pixels"},
		{"/api/qr", "qrs"},
		{"/api/bio", "bio"},
	}
	for _, l := range lists {
		r := e.do("GET", l.path, key, nil)
		if items := r.list(t, l.key); len(items) == 0 {
			t.Errorf("%s: empty list", l.path)
		}
		strictEnvelope(t, l.path, r)
	}
	// Single objects, messages and the ?short= search answer the same way.
	for _, path := range []string{"/api/account", fmt.Sprintf("/api/url/%d", lid), "/api/urls?short=" + "strict-none"} {
		r := e.do("GET", path, key, nil)
		if r.Status == http.StatusOK {
			strictEnvelope(t, path, r)
		} else if r.Body["error"] != float64(1) {
			t.Errorf("%s: error body %s", path, r.Raw)
		}
	}
}

func TestNullOptionalsOnEveryWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.user("alice")
	ok := func(method, path string, body map[string]any) response {
		t.Helper()
		r := e.do(method, path, key, body).wantStatus(t, http.StatusOK)
		strictEnvelope(t, path, r)
		return r
	}

	// Adds: every optional field null is an add without it.
	dom := wantID(t, ok("POST", "/api/domain/add", map[string]any{"domain": "https://null.example", "redirectroot": nil, "redirect404": nil}))
	ov := wantID(t, ok("POST", "/api/overlay/add", map[string]any{"name": "o", "type": nil, "message": nil, "button_text": nil,
		"button_url": nil, "background": nil, "color": nil, "position": nil}))
	sp := wantID(t, ok("POST", "/api/splash/add", map[string]any{"name": "s", "title": nil, "message": nil, "image": nil, "link": nil, "counter": nil}))
	camp := wantID(t, ok("POST", "/api/campaign/add", map[string]any{"name": nil, "slug": nil, "public": nil}))
	ch := wantID(t, ok("POST", "/api/channel/add", map[string]any{"name": "ch", "description": nil, "color": nil, "starred": nil}))
	wantID(t, ok("POST", "/api/bio/add", map[string]any{"alias": "nullbio", "title": nil}))
	px := wantID(t, ok("POST", "/api/pixel/add", map[string]any{"type": "analyticspixel", "name": "p", "tag": "G-1"}))
	qr := wantID(t, ok("POST", "/api/qr/add", map[string]any{"type": "text", "data": "hi", "background": nil, "foreground": nil, "logo": nil, "name": nil}))
	link := wantID(t, ok("POST", "/api/url/add", map[string]any{"url": "https://example.com/null",
		"custom": nil, "type": nil, "password": nil, "domain": nil, "expiry": nil, "geotarget": nil, "devicetarget": nil,
		"languagetarget": nil, "metatitle": nil, "metadescription": nil, "metaimage": nil, "description": nil, "pixels": nil,
		"channel": nil, "campaign": nil, "deeplink": nil, "status": nil, "parameters": nil, "dedupe": nil}))
	d := e.shortLinkDetails(t, key, link)
	if d["type"] != "direct" || d["status"] != "private" || d["expiry"] != nil || d["password"] != false || d["domain"] != "" {
		t.Errorf("link with null options: %v", d)
	}
	// Required fields sent as null are missing.
	e.do("POST", "/api/url/add", key, map[string]any{"url": nil}).wantStatus(t, http.StatusBadRequest).wantMessage(t, "url: required")
	e.do("POST", "/api/qr/add", key, map[string]any{"type": "text", "data": nil}).wantStatus(t, http.StatusBadRequest).wantMessage(t, "data")

	// Updates: null keeps the stored value; the one real change applies.
	ok("PUT", "/api/account/update", map[string]any{"email": "alice2@example.com", "password": nil})
	ok("PUT", fmt.Sprintf("/api/domain/%d/update", dom), map[string]any{"redirectroot": "https://example.com/", "redirect404": nil})
	ok("PUT", fmt.Sprintf("/api/overlay/%d/update", ov), map[string]any{"name": nil, "message": "m", "position": nil})
	ok("PUT", fmt.Sprintf("/api/splash/%d/update", sp), map[string]any{"name": nil, "counter": nil, "title": "t"})
	ok("PUT", fmt.Sprintf("/api/campaign/%d/update", camp), map[string]any{"name": "named", "slug": nil, "public": nil})
	ok("PUT", fmt.Sprintf("/api/channel/%d/update", ch), map[string]any{"name": nil, "description": "d", "color": nil, "starred": nil})
	ok("PUT", fmt.Sprintf("/api/pixel/%d/update", px), map[string]any{"name": nil, "tag": "G-2"})
	ok("PUT", fmt.Sprintf("/api/qr/%d/update", qr), map[string]any{"data": nil, "name": "renamed", "logo": nil, "type": nil})
	ok("PUT", fmt.Sprintf("/api/url/%d/update", link), map[string]any{"url": nil, "metatitle": "T", "expiry": nil,
		"password": nil, "pixels": nil, "geotarget": nil, "channel": nil, "deeplink": nil, "custom": nil, "domain": nil})

	acc := e.do("GET", "/api/account", key, nil).wantStatus(t, http.StatusOK).data(t)
	if acc["email"] != "alice2@example.com" {
		t.Errorf("account email %v", acc["email"])
	}
	if got := e.sqlInt(t, `SELECT count(*) FROM domains WHERE id = $1 AND redirect_root = 'https://example.com/' AND redirect_404 = ''`, dom); got != 1 {
		t.Errorf("domain after update: %d matching rows", got)
	}
	if got := e.sqlInt(t, `SELECT count(*) FROM splash_pages WHERE id = $1 AND name = 's' AND counter = 5 AND title = 't'`, sp); got != 1 {
		t.Errorf("splash after update: %d matching rows", got)
	}
	if got := e.sqlInt(t, `SELECT count(*) FROM pixels WHERE id = $1 AND name = 'p' AND tag = 'G-2'`, px); got != 1 {
		t.Errorf("pixel after update: %d matching rows", got)
	}
	q := e.do("GET", fmt.Sprintf("/api/qr/%d", qr), key, nil).wantStatus(t, http.StatusOK).Body["details"].(map[string]any)
	if q["data"] != "hi" || q["name"] != "renamed" {
		t.Errorf("qr after update: %v", q)
	}
	d = e.shortLinkDetails(t, key, link)
	if d["metatitle"] != "T" || d["longurl"] != "https://example.com/null" {
		t.Errorf("link after update: %v", d)
	}
}

func TestDateOnlyExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.user("alice")
	id, _ := e.newShortLink(t, key, map[string]any{"url": "https://example.com/d", "expiry": "2099-12-31"})
	if got := e.shortLinkDetails(t, key, id)["expiry"]; got != "2099-12-31 23:59:59" {
		t.Errorf("expiry = %v, want the end of that day", got)
	}
	e.do("PUT", fmt.Sprintf("/api/url/%d/update", id), key, map[string]any{"expiry": "2098-01-15"}).wantStatus(t, http.StatusOK)
	if got := e.shortLinkDetails(t, key, id)["expiry"]; got != "2098-01-15 23:59:59" {
		t.Errorf("expiry after update = %v", got)
	}
	e.do("POST", "/api/url/add", key, map[string]any{"url": "https://example.com/d", "expiry": "2020-01-01"}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "expiry: must be in the future")
	e.do("POST", "/api/url/add", key, map[string]any{"url": "https://example.com/d", "expiry": "2099-02-30"}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "expiry:")
}

// raw sends body with the given Content-Type ("" = none).
func (e *testEnv) raw(method, path, key, contentType string, body []byte) response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.http.URL+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	return e.send(req)
}

func TestRequestBodyDialects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.user("alice")
	ch := wantID(t, e.do("POST", "/api/channel/add", key, map[string]any{"name": "ch"}))
	px := wantID(t, e.do("POST", "/api/pixel/add", key, map[string]any{"type": "analyticspixel", "name": "p", "tag": "G-1"}))
	px2 := wantID(t, e.do("POST", "/api/pixel/add", key, map[string]any{"type": "analyticspixel", "name": "p2", "tag": "G-2"}))
	wantAlias := func(alias string) func(t *testing.T, id int64) {
		return func(t *testing.T, id int64) {
			if got := e.shortLinkDetails(t, key, id)["alias"]; got != alias {
				t.Errorf("alias %v, want %q: the body's fields were not applied", got, alias)
			}
		}
	}

	multipartBody := func(fields map[string]string, file bool) ([]byte, string) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for k, v := range fields {
			_ = mw.WriteField(k, v)
		}
		if file {
			fw, _ := mw.CreateFormFile("logo", "logo.png")
			_, _ = fw.Write([]byte("\x89PNG"))
		}
		_ = mw.Close()
		return buf.Bytes(), mw.FormDataContentType()
	}
	mpOK, mpOKType := multipartBody(map[string]string{"url": "https://example.com/mp", "custom": "mp-alias", "status": "public"}, false)
	mpFile, mpFileType := multipartBody(map[string]string{"url": "https://example.com/mp"}, true)

	tests := []struct {
		name        string
		contentType string
		body        string
		raw         []byte
		status      int
		msg         string
		check       func(t *testing.T, id int64)
	}{
		{name: "json labelled as form", contentType: "application/x-www-form-urlencoded",
			body: `{"url":"https://example.com/a","custom":"json-form"}`, status: 200, check: wantAlias("json-form")},
		{name: "json without content type", body: ` {"url":"https://example.com/b","custom":"json-none"}`, status: 200, check: wantAlias("json-none")},
		{name: "json as text/plain", contentType: "text/plain;charset=UTF-8", body: `{"url":"https://example.com/c","custom":"json-text"}`,
			status: 200, check: wantAlias("json-text")},
		{name: "json with charset", contentType: "application/json; charset=utf-8", body: `{"url":"https://example.com/d","custom":"json-cs"}`,
			status: 200, check: wantAlias("json-cs")},
		{name: "form", contentType: "application/x-www-form-urlencoded",
			body:   fmt.Sprintf("url=%s&custom=form-alias&metatitle=Hello+there&channel=%d&pixels[]=%d&status=public&unknown=1", "https%3A%2F%2Fexample.com%2Fe%3Fx%3D1", ch, px),
			status: 200, check: func(t *testing.T, id int64) {
				d := e.shortLinkDetails(t, key, id)
				if d["longurl"] != "https://example.com/e?x=1" || d["alias"] != "form-alias" || d["metatitle"] != "Hello there" ||
					d["channel"] != float64(ch) || d["status"] != "public" {
					t.Errorf("form link details %v", d)
				}
				if px0, _ := d["pixels"].([]any); len(px0) != 1 || px0[0] != float64(px) {
					t.Errorf("form pixels %v", d["pixels"])
				}
			}},
		{name: "form without content type", body: "url=https%3A%2F%2Fexample.com%2Ff&custom=form-none", status: 200, check: wantAlias("form-none")},
		{name: "form names in any case, numbers in any form", contentType: "application/x-www-form-urlencoded",
			body:   fmt.Sprintf("URL=https%%3A%%2F%%2Fexample.com%%2Fcase&Custom=form-case&MetaTitle=T&channel=00%d&pixels=%%2B%d&PIXELS[]=%d", ch, px, px2),
			status: 200, check: func(t *testing.T, id int64) {
				d := e.shortLinkDetails(t, key, id)
				if d["alias"] != "form-case" || d["metatitle"] != "T" || d["channel"] != float64(ch) {
					t.Errorf("form link details %v", d)
				}
				if got, _ := d["pixels"].([]any); len(got) != 2 {
					t.Errorf("pixels from pixels and PIXELS[]: %v", d["pixels"])
				}
			}},
		{name: "form scalar as key and key[]", contentType: "application/x-www-form-urlencoded",
			body: "url=https%3A%2F%2Fexample.com%2Fl&url[]=https%3A%2F%2Fexample.com%2Fm", status: 400, msg: "url: sent more than once"},
		{name: "form too many fields", contentType: "application/x-www-form-urlencoded",
			body: "url=https%3A%2F%2Fexample.com%2Fn" + strings.Repeat("&x=1", maxFormKeys), status: 400, msg: "form body: at most"},
		{name: "empty form", contentType: "application/x-www-form-urlencoded", body: "  ", status: 400, msg: "request body is empty"},
		{name: "form empty number is not sent", contentType: "application/x-www-form-urlencoded",
			body: "url=https%3A%2F%2Fexample.com%2Fg&channel=", status: 200},
		{name: "form bad number", contentType: "application/x-www-form-urlencoded",
			body: "url=https%3A%2F%2Fexample.com%2Fh&channel=abc", status: 400, msg: "channel: must be an integer"},
		{name: "form list of objects", contentType: "application/x-www-form-urlencoded",
			body: "url=https%3A%2F%2Fexample.com%2Fi&geotarget=DE", status: 400, msg: "geotarget: send lists of objects as JSON"},
		{name: "form object", contentType: "application/x-www-form-urlencoded",
			body: "url=https%3A%2F%2Fexample.com%2Fi&deeplink=x", status: 400, msg: "deeplink: send objects as JSON"},
		{name: "form field twice", contentType: "application/x-www-form-urlencoded",
			body: "url=https%3A%2F%2Fexample.com%2Fj&url=https%3A%2F%2Fexample.com%2Fk", status: 400, msg: "url: sent more than once"},
		{name: "form bad escape", contentType: "application/x-www-form-urlencoded", body: "url=%zz", status: 400, msg: "malformed form body"},
		{name: "form missing required", contentType: "application/x-www-form-urlencoded", body: "custom=abc", status: 400, msg: "url: required"},
		{name: "multipart", contentType: mpOKType, raw: mpOK, status: 200, check: func(t *testing.T, id int64) {
			if d := e.shortLinkDetails(t, key, id); d["alias"] != "mp-alias" || d["status"] != "public" {
				t.Errorf("multipart link %v", d)
			}
		}},
		{name: "multipart file", contentType: mpFileType, raw: mpFile, status: 400, msg: "logo: file uploads are not accepted"},
		{name: "neither", contentType: "text/plain", body: "hello", status: 415, msg: "JSON object"},
		{name: "xml", contentType: "application/xml", body: "<url>x</url>", status: 415},
		{name: "empty", contentType: "text/plain", body: "", status: 400, msg: "request body is empty"},
		{name: "json array", contentType: "application/json", body: `[{"url":"https://example.com/"}]`, status: 400, msg: "JSON object"},
		{name: "malformed json without label", body: `{"url":`, status: 400, msg: "malformed JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.raw
			if body == nil {
				body = []byte(tt.body)
			}
			r := e.raw("POST", "/api/url/add", key, tt.contentType, body).wantStatus(t, tt.status)
			if tt.msg != "" {
				r.wantMessage(t, tt.msg)
			}
			if tt.check != nil {
				tt.check(t, int64(r.Body["id"].(float64)))
			}
		})
	}

	// Form booleans and other resources use the same path.
	r := e.raw("POST", "/api/channel/add", key, "application/x-www-form-urlencoded", []byte("name=Starred&starred=true&color=%231a2b3c"))
	r.wantStatus(t, http.StatusOK)
	if r.Body["starred"] != true || r.Body["color"] != "#1A2B3C" {
		t.Errorf("form channel %s", r.Raw)
	}
	e.raw("POST", "/api/channel/add", key, "application/x-www-form-urlencoded", []byte("name=x&starred=maybe")).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "starred: must be a boolean")
	e.raw("PUT", "/api/account/update", key, "application/x-www-form-urlencoded", []byte("password=long+enough+pw")).
		wantStatus(t, http.StatusOK)
	// Numbers in a form: leading zeros and signs are read, not a 500.
	sp := e.raw("POST", "/api/splash/add", key, "application/x-www-form-urlencoded", []byte("name=s&counter=007"))
	if id := wantID(t, sp); e.sqlInt(t, `SELECT counter FROM splash_pages WHERE id = $1`, id) != 7 {
		t.Errorf("counter=007 was not stored as 7")
	}
	e.raw("POST", "/api/splash/add", key, "application/x-www-form-urlencoded", []byte("name=s&counter=NaN")).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "counter: must be an integer")
	e.raw("POST", "/api/splash/add", key, "application/x-www-form-urlencoded", []byte("name=s&counter=1_0")).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "counter: must be an integer")
}

func TestCORS(t *testing.T) {
	t.Parallel()
	preflight := func(e *testEnv, path, origin string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodOptions, e.http.URL+path, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	e := newEnv(t, func(c *config.Config) { c.CORSOrigins = []string{"https://app.example.com"} })
	_, key := e.user("alice")

	for _, path := range []string{"/api/url/add", "/api/price", "/api/urls"} {
		res := preflight(e, path, "https://app.example.com")
		if res.StatusCode != http.StatusNoContent {
			t.Fatalf("%s: preflight status %d", path, res.StatusCode)
		}
		h := res.Header
		if h.Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
			!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") ||
			!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Content-Type") ||
			!strings.Contains(h.Get("Access-Control-Allow-Methods"), "PUT") ||
			h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("%s: preflight headers %v", path, h)
		}
	}
	if res := preflight(e, "/api/url/add", "https://evil.example"); res.StatusCode != http.StatusForbidden ||
		res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("other origin: status %d, allow %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}
	// The real request carries the origin and exposes the rate-limit headers.
	req, _ := http.NewRequest("GET", e.http.URL+"/api/account", nil)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Authorization", "Bearer "+key)
	r := e.send(req).wantStatus(t, http.StatusOK)
	if r.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
		!strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), "X-RateLimit-Remaining") ||
		!strings.Contains(r.Header.Get("Vary"), "Origin") {
		t.Errorf("actual request headers %v", r.Header)
	}
	// A key error still reaches the browser as JSON with the CORS header.
	req, _ = http.NewRequest("GET", e.http.URL+"/api/account", nil)
	req.Header.Set("Origin", "https://app.example.com")
	r = e.send(req).wantStatus(t, http.StatusUnauthorized)
	if r.Header.Get("Access-Control-Allow-Origin") == "" {
		t.Errorf("401 without CORS header: %v", r.Header)
	}

	// Default: no origin is allowed.
	def := newEnv(t)
	if res := preflight(def, "/api/url/add", "https://app.example.com"); res.StatusCode != http.StatusForbidden ||
		res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("default config: preflight status %d", res.StatusCode)
	}
	// "*" answers any origin with "*".
	any := newEnv(t, func(c *config.Config) { c.CORSOrigins = []string{"*"} })
	if res := preflight(any, "/api/url/add", "https://x.example"); res.StatusCode != http.StatusNoContent ||
		res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("any origin: status %d, allow %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}
}

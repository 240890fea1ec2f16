package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// jsonArray is "[elem,elem,…]" as long as fits in size bytes.
func jsonArray(elem string, size int) string {
	n := (size - 2) / (len(elem) + 1)
	return "[" + strings.TrimSuffix(strings.Repeat(elem+",", n), ",") + "]"
}

// allocDuring reports the bytes allocated while fn ran.
func allocDuring(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// maxDecodeAlloc is what one 2 MiB request may allocate in all: the body
// itself and as much again. Decoding a 2 MiB array of empty entries in
// full before counting them allocated tens of MB (the price push about
// 100 MB); bounded, the request costs about its body.
const maxDecodeAlloc = 4 << 20

// A list field stops decoding at the entry past its limit: a body full of
// empty entries costs about its own size, not tens of MB.
func TestBoundedListsMemory(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	h := e.srv.Handler()
	for _, c := range []struct{ field, elem, msg string }{
		{"geotarget", "{}", "geotarget: at most 256 entries"},
		{"devicetarget", "{}", "devicetarget: at most 256 entries"},
		{"languagetarget", "{}", "languagetarget: at most 256 entries"},
		{"parameters", "{}", "parameters: at most 20 entries"},
		{"pixels", "1", "pixels: at most 50 entries"},
	} {
		t.Run(c.field, func(t *testing.T) {
			prefix := `{"url":"https://example.com/","` + c.field + `":`
			body := prefix + jsonArray(c.elem, MaxBody-len(prefix)-1) + "}"
			req := httptest.NewRequest("POST", "/api/url/add", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			alloc := allocDuring(func() { h.ServeHTTP(rec, req) })
			if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `"`+c.msg+`"`) {
				t.Fatalf("status %d %s, want 400 %q", rec.Code, rec.Body, c.msg)
			}
			if alloc > maxDecodeAlloc {
				t.Errorf("a %d-byte body allocated %d MB", len(body), alloc>>20)
			}
			t.Logf("%d-byte body: %d KB allocated", len(body), alloc>>10)
		})
	}
	// At the limit the list is accepted.
	params := make([]map[string]string, 20)
	for i := range params {
		params[i] = map[string]string{"name": "p" + string(rune('a'+i)), "value": "v"}
	}
	e.do("POST", "/api/url/add", key, map[string]any{"url": "https://example.com/p", "parameters": params}).wantStatus(t, http.StatusOK)
}

// The price push counts ticks as it reads them.
func TestPushTicksBounded(t *testing.T) {
	e := newEnv(t)
	body := json.RawMessage(jsonArray("{}", MaxBody))
	var err error
	alloc := allocDuring(func() { _, err = e.srv.parseTicks(body) })
	if err == nil || !strings.Contains(err.Error(), "request body: at most 1000 ticks per request") {
		t.Fatalf("err %v", err)
	}
	if alloc > maxDecodeAlloc/2 {
		t.Errorf("a %d-byte array allocated %d MB", len(body), alloc>>20)
	}
	t.Logf("%d-byte array: %d KB allocated", len(body), alloc>>10)
}

// Lists keep their error messages: wrong kinds name the field, an
// entry's wrong field names its position.
func TestBoundedListsErrors(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	for _, c := range []struct{ body, msg string }{
		{`{"url":"https://e.com","geotarget":"de"}`, "geotarget: must be an array, not string"},
		{`{"url":"https://e.com","geotarget":{"location":"de"}}`, "geotarget: must be an array, not object"},
		{`{"url":"https://e.com","pixels":[1,"a"]}`, "pixels[1]: must be an integer, not string"},
		{`{"url":"https://e.com","pixels":true}`, "pixels: must be an array, not bool"},
		{`{"url":"https://e.com","parameters":[{"name":5}]}`, "parameters[0].name: must be a string, not number"},
		{`{"url":"https://e.com","devicetarget":[{"device":"android","link":["x"]}]}`, "devicetarget[0].link: must be a string, not array"},
	} {
		e.do("POST", "/api/url/add", key, c.body).wantStatus(t, http.StatusBadRequest).wantMessage(t, c.msg)
	}
	// null is "not sent"; [] is an empty list.
	e.do("POST", "/api/url/add", key, `{"url":"https://e.com/n","geotarget":null,"pixels":[],"parameters":[]}`).wantStatus(t, http.StatusOK)
}

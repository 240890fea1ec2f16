package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kurz/admin/internal/safefetch"
)

// TestFramingBlock applies the browsers' rules to header sets, for a frame
// page on http://sho.rt and on a branded https domain.
func TestFramingBlock(t *testing.T) {
	base, _ := url.Parse("http://sho.rt/abc")
	branded, _ := url.Parse("https://go.brand.example/abc")
	tests := []struct {
		name    string
		headers map[string][]string
		anc     *url.URL
		blocked string // substring of the reason; "" = allowed
	}{
		{"no headers", nil, base, ""},
		{"xfo deny", map[string][]string{"X-Frame-Options": {"DENY"}}, base, "X-Frame-Options: DENY"},
		{"xfo sameorigin lower case", map[string][]string{"X-Frame-Options": {"sameorigin"}}, base, "X-Frame-Options: sameorigin"},
		{"xfo allow-from is ignored by browsers", map[string][]string{"X-Frame-Options": {"ALLOW-FROM http://sho.rt"}}, base, ""},
		{"xfo allowall", map[string][]string{"X-Frame-Options": {"ALLOWALL"}}, base, ""},
		{"xfo conflicting", map[string][]string{"X-Frame-Options": {"DENY", "ALLOWALL"}}, base, "X-Frame-Options"},
		{"xfo repeated same", map[string][]string{"X-Frame-Options": {"DENY, deny"}}, base, "X-Frame-Options"},
		{"csp none", map[string][]string{"Content-Security-Policy": {"default-src 'self'; frame-ancestors 'none'"}}, base, "frame-ancestors 'none'"},
		{"csp empty list", map[string][]string{"Content-Security-Policy": {"frame-ancestors;"}}, base, "frame-ancestors"},
		{"csp self", map[string][]string{"Content-Security-Policy": {"frame-ancestors 'self'"}}, base, "frame-ancestors 'self'"},
		{"csp star", map[string][]string{"Content-Security-Policy": {"frame-ancestors *"}}, base, ""},
		{"csp our host", map[string][]string{"Content-Security-Policy": {"frame-ancestors 'self' http://sho.rt"}}, base, ""},
		{"csp our host without scheme", map[string][]string{"Content-Security-Policy": {"FRAME-ANCESTORS SHO.RT"}}, base, ""},
		{"csp other host", map[string][]string{"Content-Security-Policy": {"frame-ancestors https://partner.example"}}, base, "partner.example"},
		{"csp wildcard subdomain", map[string][]string{"Content-Security-Policy": {"frame-ancestors *.brand.example"}}, branded, ""},
		{"csp wildcard is not the apex", map[string][]string{"Content-Security-Policy": {"frame-ancestors *.sho.rt"}}, base, "frame-ancestors"},
		{"csp https scheme on http page", map[string][]string{"Content-Security-Policy": {"frame-ancestors https:"}}, base, "frame-ancestors https:"},
		{"csp https scheme on https page", map[string][]string{"Content-Security-Policy": {"frame-ancestors https:"}}, branded, ""},
		{"csp http source upgrades", map[string][]string{"Content-Security-Policy": {"frame-ancestors http://go.brand.example"}}, branded, ""},
		{"csp wrong port", map[string][]string{"Content-Security-Policy": {"frame-ancestors sho.rt:8080"}}, base, "frame-ancestors"},
		{"csp overrides xfo", map[string][]string{"Content-Security-Policy": {"frame-ancestors *"}, "X-Frame-Options": {"DENY"}}, base, ""},
		{"csp without frame-ancestors leaves xfo", map[string][]string{"Content-Security-Policy": {"default-src 'none'"}, "X-Frame-Options": {"DENY"}}, base, "X-Frame-Options"},
		{"report-only is not enforced", map[string][]string{"Content-Security-Policy-Report-Only": {"frame-ancestors 'none'"}}, base, ""},
		{"every policy must allow", map[string][]string{"Content-Security-Policy": {"frame-ancestors *", "frame-ancestors 'none'"}}, base, "'none'"},
		{"policies in one header", map[string][]string{"Content-Security-Policy": {"frame-ancestors *, frame-ancestors 'none'"}}, base, "'none'"},
		{"first directive wins", map[string][]string{"Content-Security-Policy": {"frame-ancestors *; frame-ancestors 'none'"}}, base, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, vs := range tt.headers {
				for _, v := range vs {
					h.Add(k, v)
				}
			}
			got := framingBlock(h, tt.anc)
			if tt.blocked == "" && got != "" || tt.blocked != "" && !strings.Contains(got, tt.blocked) {
				t.Errorf("framingBlock = %q, want %q", got, tt.blocked)
			}
		})
	}
	long := http.Header{"Content-Security-Policy": {"frame-ancestors " + strings.Repeat("https://a.example ", 50)}}
	if got := framingBlock(long, base); len(got) > maxReasonLen+len("…") {
		t.Errorf("reason not clipped: %d bytes", len(got))
	}
}

// allowFrameFetch lets the framing check reach the tests' httptest sites.
var allowFrameFetch = safefetch.Options{AllowAddr: func(netip.Addr) bool { return true }, Timeout: 3 * time.Second}

// TestFrameCheckBusy: with every server-wide slot taken, a destination is
// reported as not checked (busy), without a request and without recording
// a refusal; the slot is free again afterwards.
func TestFrameCheckBusy(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	e.srv.frameFetch = allowFrameFetch
	e.srv.frames = newFrameChecks(1)
	started, release := make(chan struct{}, 1), make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case started <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.Header().Set("X-Frame-Options", "DENY")
	}))
	t.Cleanup(slow.Close)
	other, otherHits := frameSite(t, map[string]string{"X-Frame-Options": "DENY"}, false)

	first := make(chan int, 1) // status of the add that holds the slot
	go func() {
		body, _ := json.Marshal(map[string]any{"url": slow.URL + "/slow", "type": "frame"})
		req, _ := http.NewRequest("POST", e.http.URL+"/api/url/add", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			first <- 0
			return
		}
		res.Body.Close()
		first <- res.StatusCode
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the first check never reached its destination")
	}
	r := e.addLink(t, key, map[string]any{"url": other, "type": "frame"})
	checkWarnings(t, r, []string{"url: http://127.0.0.1", "not checked for framing (the server is busy; try again)"})
	if otherHits.Load() != 0 {
		t.Errorf("a busy check sent %d requests", otherHits.Load())
	}
	if frameRefused(t, e, idOf(t, r)) {
		t.Error("a busy check recorded a refusal")
	}
	close(release)
	if status := <-first; status != http.StatusOK {
		t.Fatalf("the add holding the slot answered %d", status)
	}
	// Busy is not remembered, and the slot was given back.
	r = e.addLink(t, key, map[string]any{"url": other, "type": "frame"})
	checkWarnings(t, r, []string{"forbids framing (X-Frame-Options: DENY)"})
	if otherHits.Load() == 0 || !frameRefused(t, e, idOf(t, r)) {
		t.Errorf("after the busy spell: %d requests, refusal recorded %v", otherHits.Load(), frameRefused(t, e, idOf(t, r)))
	}
	// A check that could not look keeps the recorded refusal: the link
	// stays a working redirect instead of becoming a broken frame.
	e.srv.frames = newFrameChecks(0)
	path := fmt.Sprintf("/api/url/%d/update", idOf(t, r))
	checkWarnings(t, e.do("PUT", path, key, map[string]any{"type": "overlay"}).wantStatus(t, http.StatusOK),
		[]string{"the server is busy"})
	if !frameRefused(t, e, idOf(t, r)) {
		t.Error("a busy check cleared the recorded refusal")
	}
}

// TestFrameCheckCache: answers are reused across links and accounts for
// frameAnswerTTL, failures for frameFailureTTL; another of our origins is
// checked on its own.
func TestFrameCheckCache(t *testing.T) {
	e := newEnv(t)
	uid, alice := e.user("alice")
	_, bob := e.user("bob")
	makeLinkFixtures(t, e, uid, "go.alice.example")
	e.srv.frameFetch = allowFrameFetch
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	e.srv.frames.now = func() time.Time { return time.Unix(0, clock.Load()) }
	advance := func(d time.Duration) { clock.Add(int64(d)) }

	deny, denyHits := frameSite(t, map[string]string{"X-Frame-Options": "DENY"}, false)
	ok, okHits := frameSite(t, nil, false)
	var brokenHits atomic.Int64
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		brokenHits.Add(1)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close() // no answer at all: a transport failure
		}
	}))
	t.Cleanup(broken.Close)

	tests := []struct {
		name    string
		url     string
		hits    *atomic.Int64
		want    []string
		refused bool
		ttl     time.Duration
	}{
		{"refused", deny, denyHits, []string{"X-Frame-Options: DENY"}, true, frameAnswerTTL},
		{"allowed", ok, okHits, nil, false, frameAnswerTTL},
		{"transport failure", broken.URL + "/x", &brokenHits, []string{"could not be checked"}, false, frameFailureTTL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			add := func(key string, body map[string]any) (fetched bool) {
				t.Helper()
				before := tt.hits.Load()
				r := e.addLink(t, key, body)
				checkWarnings(t, r, tt.want)
				if got := frameRefused(t, e, idOf(t, r)); got != tt.refused {
					t.Errorf("frame_refused = %v, want %v", got, tt.refused)
				}
				return tt.hits.Load() != before
			}
			frame := map[string]any{"url": tt.url, "type": "frame"}
			if !add(alice, frame) {
				t.Fatal("the first check sent no request")
			}
			if add(alice, frame) {
				t.Error("saving the same destination again was checked again")
			}
			if add(bob, map[string]any{"url": tt.url, "type": "overlay"}) {
				t.Error("another account's link to the same destination was checked again")
			}
			if !add(alice, map[string]any{"url": tt.url, "type": "frame", "domain": "go.alice.example"}) {
				t.Error("a link on another of our origins reused the answer for the default domain")
			}
			advance(tt.ttl - time.Second)
			if add(alice, frame) {
				t.Error("checked again before the answer expired")
			}
			advance(2 * time.Second)
			if !add(alice, frame) {
				t.Error("not checked again after the answer expired")
			}
		})
	}
}

// TestFrameCheckBounds: one write checks at most maxFrameChecks distinct
// URLs, each once, following at most frameMaxRedirects redirects.
func TestFrameCheckBounds(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	e.srv.frameFetch = allowFrameFetch
	site, hits := frameSite(t, nil, false)

	geo := []map[string]string{}
	for i, c := range []string{"de", "fr", "it", "es", "nl", "at"} {
		geo = append(geo, map[string]string{"location": c, "link": fmt.Sprintf("%s?%d", site, i)})
	}
	checkWarnings(t, e.addLink(t, key, map[string]any{"url": site, "type": "frame", "geotarget": geo}), nil)
	if hits.Load() != maxFrameChecks {
		t.Errorf("7 distinct destinations: %d requests, want %d", hits.Load(), maxFrameChecks)
	}

	hits.Store(0)
	same := site + "?same"
	checkWarnings(t, e.addLink(t, key, map[string]any{"url": same, "type": "frame",
		"geotarget":    []map[string]string{{"location": "de", "link": same}, {"location": "fr", "link": same}},
		"devicetarget": []map[string]string{{"device": "iphone", "link": same}}}), nil)
	if hits.Load() != 1 {
		t.Errorf("one destination named 4 times: %d requests, want 1", hits.Load())
	}

	// /r/n redirects n times, then answers with X-Frame-Options: DENY.
	redirects := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/r/%d", &n); err == nil && n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/r/%d", n-1), http.StatusFound)
			return
		}
		w.Header().Set("X-Frame-Options", "DENY")
	}))
	t.Cleanup(redirects.Close)
	checkWarnings(t, e.addLink(t, key, map[string]any{"url": redirects.URL + "/r/2", "type": "frame"}),
		[]string{"X-Frame-Options: DENY"})
	checkWarnings(t, e.addLink(t, key, map[string]any{"url": redirects.URL + "/r/3", "type": "frame"}),
		[]string{"could not be checked"})
}

// TestFrameChecksMemoryBound: the remembered answers never exceed their
// bound; expired answers go first.
func TestFrameChecksMemoryBound(t *testing.T) {
	c := newFrameChecks(1)
	c.size = 3
	now := time.Unix(1_700_000_000, 0)
	c.now = func() time.Time { return now }
	refused := frameVerdict{state: verdictRefused, reason: "X-Frame-Options: DENY"}
	c.put("a", refused, time.Second)
	c.put("b", refused, time.Second)
	c.put("keep", refused, time.Hour)
	now = now.Add(2 * time.Second)
	c.put("new", refused, time.Hour)
	if _, ok := c.get("keep"); !ok || len(c.entries) != 2 {
		t.Errorf("after expiry: %d entries, kept the live one: %v", len(c.entries), ok)
	}
	for i := range 10 {
		c.put(fmt.Sprint(i), refused, time.Hour)
		if len(c.entries) > c.size {
			t.Fatalf("%d entries, bound %d", len(c.entries), c.size)
		}
	}
	if v, ok := c.get("9"); !ok || v != refused {
		t.Errorf("the newest answer: %v, %v", v, ok)
	}
}

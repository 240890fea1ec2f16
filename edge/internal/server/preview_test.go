package server

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"kurz/edge/internal/catalog"
)

// TestPreviewCache: a second preview of the same link is served from the
// rendered-page cache with the same status, headers and body, HEAD gets no
// body, and a changed link renders again.
func TestPreviewCache(t *testing.T) {
	e := newEnv(t)
	startListener(t, e)
	const bot = "Twitterbot/1.0"
	id := e.addLink(linkRow{Alias: "unfurl", URL: "https://example.com/a", MetaTitle: "First title"})
	e.known(t, "", "unfurl")

	first := e.do(req{path: "/unfurl", ua: bot})
	expect(t, first, 200, "")
	expectBody(t, first, "First title")
	if c := e.srv.previews.slots[uint64(id)%previewSlots].Load(); c == nil || c.link.ID != id || !bytes.Equal(c.body, first.Body()) {
		t.Fatal("preview not cached after the first render")
	}
	second := e.do(req{path: "/unfurl", ua: bot})
	if !bytes.Equal(first.Body(), second.Body()) {
		t.Fatalf("cached body differs:\n%s\n---\n%s", first.Body(), second.Body())
	}
	if a, b := first.Header.Peek("Content-Security-Policy"), second.Header.Peek("Content-Security-Policy"); len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("CSP %q then %q", a, b)
	}
	if h := e.rec.last(t); h.LinkID != id {
		t.Fatalf("cached preview did not count the visit: %+v", h)
	}
	head := e.do(req{method: "HEAD", path: "/unfurl", ua: bot})
	if head.StatusCode() != 200 || len(head.Body()) != 0 {
		t.Fatalf("HEAD: %d with %d body bytes", head.StatusCode(), len(head.Body()))
	}

	e.exec(`UPDATE links SET meta_title = 'Second title' WHERE id = $1`, id)
	waitFor(t, 5*time.Second, "updated preview", func() bool {
		return strings.Contains(string(e.do(req{path: "/unfurl", ua: bot}).Body()), "Second title")
	})
}

// TestPreviewCacheSecondChance: a colliding link replaces a cached preview
// only when that preview was not hit since the last collision.
func TestPreviewCacheSecondChance(t *testing.T) {
	var c previewCache
	hot, cold := &catalog.Link{ID: 7}, &catalog.Link{ID: 7 + previewSlots}
	c.put(&previewEntry{link: hot})
	if c.get(hot, true) != nil {
		t.Fatal("entry rendered without TLS served over TLS")
	}
	if c.get(hot, false) == nil {
		t.Fatal("hot link not cached")
	}
	c.put(&previewEntry{link: cold})
	if c.get(hot, false) == nil || c.get(cold, false) != nil {
		t.Fatal("a hit entry was evicted by the first colliding miss")
	}
	c.put(&previewEntry{link: cold}) // the hit above marked hot again
	c.put(&previewEntry{link: cold}) // hot's mark is cleared: cold wins
	if c.get(cold, false) == nil || c.get(hot, false) != nil {
		t.Fatal("an unused entry was kept")
	}
	updated := &catalog.Link{ID: 7 + previewSlots}
	if c.get(updated, false) != nil {
		t.Fatal("a changed link (new pointer) was served the old preview")
	}
}

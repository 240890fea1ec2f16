package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// A host someone registers as a branded domain is not theirs to break:
// other users' links, targets and QR codes to that host keep working.
func TestOthersDomainDoesNotBlockLinks(t *testing.T) {
	e := newEnv(t)
	_, alice := e.user("alice")
	_, bob := e.user("bob")
	wantID(t, e.do("POST", "/api/domain/add", alice, map[string]any{"domain": "https://www.wikipedia.org"}))

	id, _ := e.newShortLink(t, bob, map[string]any{"url": "https://www.wikipedia.org/wiki/Go", "dedupe": false})
	e.newShortLink(t, bob, map[string]any{"url": "https://example.com/x", "dedupe": false,
		"geotarget":    []map[string]string{{"location": "de", "link": "https://WWW.wikipedia.org./wiki/Go"}},
		"devicetarget": []map[string]string{{"device": "android", "link": "http://www.wikipedia.org:80/"}},
		"deeplink":     map[string]string{"ios_store": "https://www.wikipedia.org/app"}})
	e.do("PUT", fmt.Sprintf("/api/url/%d/update", id), bob, map[string]any{"url": "https://www.wikipedia.org/wiki/Rust"}).
		wantStatus(t, http.StatusOK)
	// Bob's own domains pointing there are no business of alice's either.
	wantID(t, e.do("POST", "/api/domain/add", bob, map[string]any{"domain": "https://go.bob.example",
		"redirectroot": "https://www.wikipedia.org/", "redirect404": "https://www.wikipedia.org/404"}))
	// The owner is still refused: her own domain would loop.
	e.do("POST", "/api/url/add", alice, map[string]any{"url": "https://www.wikipedia.org/wiki/Go"}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "url", "redirect loop")
}

// The loop check compares hosts the way a browser resolves them: case,
// trailing dot, default ports, full-width and ideographic forms, Unicode
// for punycode.
func TestLinkLoopNormalisedHosts(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	for _, d := range []string{"https://go.alice.example", "https://xn--bcher-kva.example"} {
		wantID(t, e.do("POST", "/api/domain/add", key, map[string]any{"domain": d}))
	}
	for _, u := range []string{
		"https://GO.ALICE.EXAMPLE./x",
		"https://go.alice.example:443/x",
		"http://go.alice.example:80/x",
		"https://go.alice.example:8443/x", // the edge serves a domain's name on any port
		"https://ｇｏ.ａｌｉｃｅ.ｅｘａｍｐｌｅ/x",
		"https://go。alice。example/x",
		"https://go．alice．example/x",
		"https://bücher.example/x",
		"https://BÜCHER.example/x",
		"https://ｓｈｏ.ｒｔ/abc",
		"https://SHO.RT.:443/abc",
		"http://sho。rt/abc",
		"https://sho.rt:/abc", // an empty port is the default port
		"https://sho.rt:0443/abc",
		"http://sho.rt:00080/abc",
		"https://SHO.RT.:000443/abc",
		"http://sho.rt:0080/abc",
	} {
		t.Run(u, func(t *testing.T) {
			e.do("POST", "/api/url/add", key, map[string]any{"url": u}).
				wantStatus(t, http.StatusBadRequest).wantMessage(t, "url", "redirect loop")
			e.do("POST", "/api/url/add", key, map[string]any{"url": "https://example.com/",
				"geotarget": []map[string]string{{"location": "fr", "link": u}}}).
				wantStatus(t, http.StatusBadRequest).wantMessage(t, "geotarget[0].link", "redirect loop")
		})
	}
	// Another port of the default domain is another server, not a loop.
	e.newShortLink(t, key, map[string]any{"url": "http://sho.rt:8080/abc"})
	if n := linkCount(t, e); n != 1 {
		t.Fatalf("%d links stored, want only the last one", n)
	}
}

// Two of one user's domains whose redirects send a visitor to each other
// loop; the second redirect that closes the circle is refused. Other
// users' domains never take part.
func TestDomainRedirectCycle(t *testing.T) {
	e := newEnv(t)
	_, alice := e.user("alice")
	_, bob := e.user("bob")
	add := func(key string, body map[string]any) response { return e.do("POST", "/api/domain/add", key, body) }
	a := wantID(t, add(alice, map[string]any{"domain": "https://a.alice.example", "redirect404": "https://b.alice.example/missing"}))
	add(alice, map[string]any{"domain": "https://b.alice.example", "redirect404": "https://A.alice.example./gone"}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "redirect404", "redirect loop")
	b := wantID(t, add(alice, map[string]any{"domain": "https://b.alice.example"}))
	update := func(id int64, body map[string]any) response {
		return e.do("PUT", fmt.Sprintf("/api/domain/%d/update", id), alice, body)
	}
	update(b, map[string]any{"redirect404": "https://ａ.alice.example/x"}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "redirect404", "redirect loop")
	// Root to root: a → b's root, b's root → a's root.
	update(a, map[string]any{"redirect404": "", "redirectroot": "https://b.alice.example/"}).wantStatus(t, http.StatusOK)
	for _, root := range []string{"https://a.alice.example", "https://a.alice.example/./", "https://a.alice.example//"} {
		update(b, map[string]any{"redirectroot": root}).
			wantStatus(t, http.StatusBadRequest).wantMessage(t, "redirectroot", "redirect loop")
	}
	// A redirect to a path of the other domain may end in its 404 redirect.
	update(a, map[string]any{"redirectroot": "https://b.alice.example/nothing"}).wantStatus(t, http.StatusOK)
	update(b, map[string]any{"redirect404": "https://a.alice.example/"}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "redirect404", "redirect loop")
	// Three domains: a → b → c → a.
	update(a, map[string]any{"redirectroot": "https://b.alice.example/"}).wantStatus(t, http.StatusOK)
	c := wantID(t, add(alice, map[string]any{"domain": "https://c.alice.example"}))
	update(b, map[string]any{"redirectroot": "https://c.alice.example/"}).wantStatus(t, http.StatusOK)
	update(c, map[string]any{"redirectroot": "https://a.alice.example/"}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "redirectroot", "redirect loop")
	// Not a cycle: a chain that ends elsewhere, and redirects to another
	// user's domain (which alice does not control).
	update(c, map[string]any{"redirectroot": "https://example.com/"}).wantStatus(t, http.StatusOK)
	wantID(t, add(bob, map[string]any{"domain": "https://go.bob.example", "redirect404": "https://a.alice.example/x"}))
	update(a, map[string]any{"redirect404": "https://go.bob.example/y"}).wantStatus(t, http.StatusOK)
}

// A link QR code must not send its scans to its own scan or image URL, nor
// to any QR scan URL on the default domain or the owner's domains.
func TestQRTargetsItself(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	wantID(t, e.do("POST", "/api/domain/add", key, map[string]any{"domain": "https://go.alice.example"}))
	id, img := e.addQRCode(t, key, map[string]any{"type": "link", "data": "https://example.com/menu"})
	code := img[strings.LastIndexByte(img, '/')+1:]
	for _, target := range []string{
		"http://sho.rt/q/" + code,
		"https://SHO.RT.:443/q/" + code,
		"https://sho.rt:/q/Zz9Zz9Zz",
		"http://sho.rt:00080/q/Zz9Zz9Zz",
		"https://ｓｈｏ.ｒｔ/q/" + code + "?utm=x",
		"http://sho.rt/qr/" + code + "?size=300",
		"https://go.alice.example/q/" + code,
		"https://elsewhere.example/q/" + code, // wherever it points, it names this code
		"http://sho.rt/q/Zz9Zz9Zz",            // another QR code: scans would chain
		"https://go.alice.example/q/Zz9Zz9Zz",
	} {
		t.Run(target, func(t *testing.T) {
			e.do("PUT", fmt.Sprintf("/api/qr/%d/update", id), key, map[string]any{"data": target}).
				wantStatus(t, http.StatusBadRequest).wantMessage(t, "data", "loop")
		})
	}
	e.do("POST", "/api/qr/add", key, map[string]any{"type": "link", "data": "https://sho.rt/q/Zz9Zz9Zz"}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "data", "loop")
	// A short link of the service and another site's /q/ path are fine.
	e.do("PUT", fmt.Sprintf("/api/qr/%d/update", id), key, map[string]any{"data": "https://sho.rt/promo"}).wantStatus(t, http.StatusOK)
	e.do("PUT", fmt.Sprintf("/api/qr/%d/update", id), key, map[string]any{"data": "https://example.com/q/Zz9Zz9Zz"}).wantStatus(t, http.StatusOK)
}

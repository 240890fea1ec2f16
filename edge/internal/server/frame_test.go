package server

import (
	"crypto/sha256"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"
)

var inlineScriptRe = regexp.MustCompile(`(?s)<script>(.*?)</script>`)

// TestFrameFallback: frame and overlay pages carry the fallback script
// (navigate top-level to the destination when the frame cannot load),
// allowed by its hash alone, and keep the "open directly" bar.
func TestFrameFallback(t *testing.T) {
	e := newEnv(t)
	overlay := e.id(`INSERT INTO overlays (user_id, name, message, button_text, button_url, background, color, position)
		VALUES ($1, 'o', 'Join', 'Sign up', 'https://acme.example/signup', '#112233', '#ffffff', 'top') RETURNING id`, e.user)
	e.addLink(linkRow{Alias: "framed", URL: "https://example.com/f?x=1", Type: "frame"})
	e.addLink(linkRow{Alias: "overlaid", URL: "https://example.com/o", Type: "overlay", OverlayID: &overlay})
	for alias, dest := range map[string]string{"framed": "https://example.com/f?x=1&amp;v=2", "overlaid": "https://example.com/o?v=2"} {
		t.Run(alias, func(t *testing.T) {
			r := e.do(req{path: "/" + alias + "?v=2"})
			expect(t, r, 200, "")
			expectBody(t, r,
				`<body class="framed" data-url="`+dest+`">`,
				`<iframe class="dest" src="`+dest+`"`,
				`<a href="`+dest+`" target="_top" rel="noopener">Open the page directly</a>`)
			m := inlineScriptRe.FindAllStringSubmatch(string(r.Body()), -1)
			if len(m) != 1 {
				t.Fatalf("%d inline scripts, want the fallback script only", len(m))
			}
			js := m[0][1]
			for _, part := range []string{`addEventListener("load"`, "setTimeout(go,", "location.replace(u)", "contentDocument"} {
				if !strings.Contains(js, part) {
					t.Fatalf("fallback script lacks %q: %s", part, js)
				}
			}
			sum := sha256.Sum256([]byte(js))
			csp := string(r.Header.Peek("Content-Security-Policy"))
			if !strings.Contains(csp, "script-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") {
				t.Fatalf("CSP %q does not allow the script by its hash", csp)
			}
			if strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Fatalf("CSP %q", csp)
			}
		})
	}
}

// TestFrameRefusedRedirects: a frame or overlay link whose destination
// refuses frames (recorded by the admin's write-time check) is served as
// a plain redirect, or as the pixel page when it has pixels: a frame
// would only show the browser's error page.
func TestFrameRefusedRedirects(t *testing.T) {
	e := newEnv(t)
	overlay := e.id(`INSERT INTO overlays (user_id, name) VALUES ($1, 'o') RETURNING id`, e.user)
	pixel := e.id(`INSERT INTO pixels (user_id, type, name, tag) VALUES ($1, 'analyticspixel', 'p', 'G-1') RETURNING id`, e.user)
	framed := e.addLink(linkRow{Alias: "refusing-frame", URL: "https://example.com/f", Type: "frame"})
	overlaid := e.addLink(linkRow{Alias: "refusing-overlay", URL: "https://example.com/o", Type: "overlay", OverlayID: &overlay})
	withPixel := e.addLink(linkRow{Alias: "refusing-pixel", URL: "https://example.com/p", Type: "frame"})
	e.exec(`INSERT INTO link_pixels (link_id, pixel_id) VALUES ($1, $2)`, withPixel, pixel)
	e.addLink(linkRow{Alias: "allowing-frame", URL: "https://example.com/a", Type: "frame"})
	e.exec(`UPDATE links SET frame_refused = true WHERE id = ANY($1)`, []int64{framed, overlaid, withPixel})

	expect(t, e.do(req{path: "/refusing-frame?v=1"}), 302, "https://example.com/f?v=1")
	expect(t, e.do(req{path: "/refusing-overlay"}), 302, "https://example.com/o")
	r := e.do(req{path: "/refusing-pixel"})
	expect(t, r, 200, "")
	if body := string(r.Body()); strings.Contains(body, "<iframe") || !strings.Contains(body, "G-1") {
		t.Errorf("refusing link with a pixel: want the pixel page without a frame, got %s", body)
	}
	r = e.do(req{path: "/allowing-frame"})
	expect(t, r, 200, "")
	expectBody(t, r, `<iframe class="dest"`)
}

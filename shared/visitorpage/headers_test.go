package visitorpage

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"kurz/shared/link"
)

// samplePages is one valid instance of every page.
func samplePages() []Data {
	const dest = "https://dest.test/"
	return []Data{
		&NotFoundPage{}, &GonePage{}, &UnavailablePage{}, &LandingPage{}, &PasswordPage{Alias: "a"},
		&PreviewPage{Destination: dest}, &FramePage{Destination: dest},
		&OverlayPage{Destination: dest, Background: "#010203"}, &SplashPage{Destination: dest},
		&PixelPage{Destination: dest, Pixels: []Pixel{{"socialnetworkpixel", "1"}}}, &CampaignPage{Name: "c"},
		&StatsPage{Alias: "a", ShortURL: dest, Destination: dest}, &StatsUnavailablePage{RetryAfter: 30},
	}
}

func TestHeadersEveryPage(t *testing.T) {
	p := newPages(t)
	for _, d := range samplePages() {
		hs := p.Headers(d)
		want := map[string]string{
			"Content-Type":           "text/html; charset=utf-8",
			"X-Content-Type-Options": "nosniff",
			"X-Frame-Options":        "DENY",
			"Cache-Control":          "no-store",
		}
		for name, v := range want {
			if got := header(hs, name); got != v {
				t.Errorf("%T: %s = %q, want %q", d, name, got, v)
			}
		}
		ref := header(hs, "Referrer-Policy")
		if _, pw := d.(*PasswordPage); pw && ref != "no-referrer" || !pw && ref != "strict-origin-when-cross-origin" {
			t.Errorf("%T: Referrer-Policy = %q", d, ref)
		}
		csp := header(hs, "Content-Security-Policy")
		for _, dir := range []string{"default-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "style-src " + hashSource(baseCSS)} {
			if !strings.Contains(csp, dir) {
				t.Errorf("%T: CSP %q lacks %q", d, csp, dir)
			}
		}
		out := render(t, p, d)
		checkStructure(t, out, csp)
		_, framed := d.(*FramePage)
		_, overlay := d.(*OverlayPage)
		if hasFrameSrc := strings.Contains(csp, "frame-src https: http:"); hasFrameSrc != (framed || overlay) {
			t.Errorf("%T: frame-src https: http: present = %v", d, hasFrameSrc)
		}
		if strings.Contains(out, "<script") != strings.Contains(csp, "script-src") {
			t.Errorf("%T: script-src must be listed exactly when the page has a script", d)
		}
	}
}

func TestHeadersRetryAfter(t *testing.T) {
	p := newPages(t)
	tests := []struct {
		data Data
		want string
	}{
		{&UnavailablePage{RetryAfter: 5}, "5"},
		{&UnavailablePage{}, ""},
		{&PasswordPage{RetryAfter: 30}, "30"},
		{&PasswordPage{Busy: true, RetryAfter: 3}, "3"},
		{&PasswordPage{Wrong: true}, ""},
		{&StatsUnavailablePage{RetryAfter: 30}, "30"},
		{&StatsUnavailablePage{}, ""},
	}
	for _, tt := range tests {
		if got := header(p.Headers(tt.data), "Retry-After"); got != tt.want {
			t.Errorf("%T%+v: Retry-After = %q, want %q", tt.data, tt.data, got, tt.want)
		}
	}
	// The per-call variants must not write into the shared slices.
	if got := header(p.Headers(&UnavailablePage{}), "Retry-After"); got != "" {
		t.Errorf("shared 503 headers were modified: Retry-After = %q", got)
	}
	p.Headers(&OverlayPage{Destination: "https://d.test/", Background: "#000000"})
	if got := header(p.headers[kindOverlay], "Content-Security-Policy"); got != p.kindCSP(kindOverlay) {
		t.Errorf("shared overlay headers were modified: %q", got)
	}
}

// cspDirective returns the sources of one directive of a policy.
func cspDirective(csp, name string) []string {
	for _, d := range strings.Split(csp, ";") {
		f := strings.Fields(d)
		if len(f) > 0 && f[0] == name {
			return f[1:]
		}
	}
	return nil
}

func TestPixelCSPListsExactlyPresentVendors(t *testing.T) {
	p := newPages(t)
	for i, typ := range pixelTypes {
		t.Run(typ, func(t *testing.T) {
			v := &vendors[i]
			csp := header(p.Headers(&PixelPage{Destination: "https://d.test/", Pixels: []Pixel{{typ, "ID-1"}}}), "Content-Security-Policy")
			checks := []struct {
				dir  string
				want []string
			}{
				{"script-src", append([]string{hashSource(pixelJS)}, v.script...)},
				{"img-src", v.img},
				{"connect-src", v.connect},
				{"frame-src", v.frame},
			}
			for _, c := range checks {
				got := cspDirective(csp, c.dir)
				if !slices.Equal(got, c.want) {
					t.Errorf("%s = %v, want %v", c.dir, got, c.want)
				}
			}
		})
	}
	all := make([]Pixel, 0, len(pixelTypes))
	for _, typ := range pixelTypes {
		all = append(all, Pixel{typ, "ID"})
	}
	csp := header(p.Headers(&PixelPage{Destination: "https://d.test/", Pixels: all}), "Content-Security-Policy")
	for _, dir := range []string{"script-src", "img-src", "connect-src", "frame-src"} {
		got := cspDirective(csp, dir)
		if len(got) != len(slices.Compact(slices.Sorted(slices.Values(got)))) {
			t.Errorf("%s repeats a host: %v", dir, got)
		}
	}
	none := header(p.Headers(&PixelPage{Destination: "https://d.test/"}), "Content-Security-Policy")
	if got := cspDirective(none, "script-src"); !slices.Equal(got, []string{hashSource(pixelJS)}) {
		t.Errorf("no pixels: script-src = %v", got)
	}
	if strings.Contains(none, "img-src") || strings.Contains(none, "connect-src") {
		t.Errorf("no pixels: policy lists hosts: %q", none)
	}
}

var jsHostRe = regexp.MustCompile(`"(https://[^/"]+)`)

// TestPixelScriptMatchesVendorTable keeps assets/pixel.js and the vendor
// table in step: every vendor has a loader, and every host a loader pulls a
// script from is in that vendor's script-src list.
func TestPixelScriptMatchesVendorTable(t *testing.T) {
	loaders := map[string]string{}
	var gtLine string
	for _, line := range strings.Split(pixelJS, "\n") {
		if k, _, ok := strings.Cut(line, ":function("); ok && !strings.ContainsAny(k, " (") {
			loaders[k] = line
		}
		if strings.HasPrefix(line, "function gt(") {
			gtLine = line
		}
	}
	if gtLine == "" {
		t.Fatal("pixel.js has no gt() helper")
	}
	if len(loaders) != len(vendors) {
		t.Errorf("pixel.js has %d loaders, the vendor table %d", len(loaders), len(vendors))
	}
	for i, v := range vendors {
		line, ok := loaders[v.key]
		if !ok {
			t.Errorf("%s: no loader %q in pixel.js", pixelTypes[i], v.key)
			continue
		}
		if strings.Contains(line, "gt(") {
			line += gtLine
		}
		hosts := jsHostRe.FindAllStringSubmatch(line, -1)
		if len(hosts) == 0 {
			t.Errorf("%s: loader loads no script", v.key)
		}
		for _, h := range hosts {
			if !slices.Contains(v.script, h[1]) {
				t.Errorf("%s: loader host %s missing from script-src %v", v.key, h[1], v.script)
			}
		}
	}
}

func TestEverySpecPixelTypeHasAVendor(t *testing.T) {
	for _, typ := range link.PixelTypes {
		if vendorIndex(typ) < 0 {
			t.Errorf("pixel type %q has no vendor", typ)
		}
	}
	if len(link.PixelTypes) != len(pixelTypes) {
		t.Errorf("spec has %d pixel types, pages %d", len(link.PixelTypes), len(pixelTypes))
	}
}

func TestOverlayCSPHashesColourBlock(t *testing.T) {
	p := newPages(t)
	a := header(p.Headers(&OverlayPage{Destination: "https://d.test/", Background: "#000000"}), "Content-Security-Policy")
	b := header(p.Headers(&OverlayPage{Destination: "https://d.test/", Background: "#FFFFFF"}), "Content-Security-Policy")
	if a == b {
		t.Fatal("overlay CSP does not depend on the colours")
	}
}

// The dashboard's previews: the same policy, framable by the same origin
// only, sandboxed; the edge's own headers are unchanged by the call.
func TestEmbedHeaders(t *testing.T) {
	p := newPages(t)
	for _, d := range []Data{&OverlayPage{Destination: "https://dest.test/", Background: "#010203"}, &SplashPage{Destination: "https://dest.test/"}} {
		edge := header(p.Headers(d), "Content-Security-Policy")
		hs := p.EmbedHeaders(d)
		csp := header(hs, "Content-Security-Policy")
		if want := strings.TrimSuffix(edge, "; frame-ancestors 'none'") + "; frame-ancestors 'self'; sandbox allow-scripts"; csp != want {
			t.Errorf("%T: CSP %q, want %q", d, csp, want)
		}
		if got := header(hs, "X-Frame-Options"); got != "SAMEORIGIN" {
			t.Errorf("%T: X-Frame-Options %q", d, got)
		}
		if got := header(p.Headers(d), "X-Frame-Options"); got != "DENY" || header(p.Headers(d), "Content-Security-Policy") != edge {
			t.Errorf("%T: the edge's headers changed: %q", d, got)
		}
		if len(hs) != len(p.Headers(d)) {
			t.Errorf("%T: %d headers, the edge sends %d", d, len(hs), len(p.Headers(d)))
		}
	}
}

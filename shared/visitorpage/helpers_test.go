package visitorpage

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"
)

// newPages builds a Pages or fails the test.
func newPages(t testing.TB) *Pages {
	t.Helper()
	p, err := New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

// render renders d and fails the test on error.
func render(t testing.TB, p *Pages, d Data) string {
	t.Helper()
	var buf bytes.Buffer
	if err := p.Render(&buf, d); err != nil {
		t.Fatalf("Render(%T): %v", d, err)
	}
	return buf.String()
}

// header returns the value of the named header, "" when absent.
func header(hs []Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

var (
	scriptRe = regexp.MustCompile(`(?s)<script([^>]*)>(.*?)</script>`)
	styleRe  = regexp.MustCompile(`(?s)<style([^>]*)>(.*?)</style>`)
	tagRe    = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*/?>`)
	attrRe   = regexp.MustCompile(`\s+([^\s=>]+)(?:="([^"]*)")?`)
)

// element is one start tag of a rendered page.
type element struct {
	name  string
	attrs map[string]string // values HTML-unescaped
}

// checkStructure asserts the invariants every page keeps, whatever its data:
// each inline script and style is covered by a hash in csp, no event
// handler attribute exists, every URL-bearing attribute holds an http(s)
// URL, and a meta refresh points to an http(s) URL. It returns the start
// tags outside script and style bodies.
func checkStructure(t *testing.T, out, csp string) []element {
	t.Helper()
	for _, m := range scriptRe.FindAllStringSubmatch(out, -1) {
		if m[1] != "" {
			t.Errorf("script element with attributes %q", m[1])
		}
		if !strings.Contains(csp, hashSource(m[2])) {
			t.Errorf("inline script not covered by the CSP %q", csp)
		}
	}
	for _, m := range styleRe.FindAllStringSubmatch(out, -1) {
		if !strings.Contains(csp, hashSource(m[2])) {
			t.Errorf("inline style %q not covered by the CSP %q", m[2], csp)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP allows unsafe sources: %q", csp)
	}
	// Script and style bodies hold '<' legitimately; everything else must
	// be tags we wrote.
	rest := styleRe.ReplaceAllString(scriptRe.ReplaceAllString(out, "<script></script>"), "<style></style>")
	var els []element
	for _, m := range tagRe.FindAllStringSubmatch(rest, -1) {
		e := element{name: strings.ToLower(m[1]), attrs: map[string]string{}}
		for _, a := range attrRe.FindAllStringSubmatch(m[2], -1) {
			name := strings.ToLower(a[1])
			val := html.UnescapeString(a[2])
			e.attrs[name] = val
			checkAttr(t, e.name, name, val)
		}
		if e.name == "meta" && strings.EqualFold(e.attrs["http-equiv"], "refresh") {
			_, u, ok := strings.Cut(e.attrs["content"], ";url=")
			if !ok || !isHTTP(u) {
				t.Errorf("meta refresh to a non-http(s) URL: %q", e.attrs["content"])
			}
		}
		if e.name == "meta" && isURLMeta(e.attrs["property"]+e.attrs["name"]) && !isHTTP(e.attrs["content"]) {
			t.Errorf("meta %q with a non-http(s) URL %q", e.attrs["property"]+e.attrs["name"], e.attrs["content"])
		}
		els = append(els, e)
	}
	return els
}

func checkAttr(t *testing.T, tag, name, val string) {
	t.Helper()
	switch {
	case strings.HasPrefix(name, "on"):
		t.Errorf("<%s> has an event handler attribute %s=%q", tag, name, val)
	case name == "style":
		t.Errorf("<%s> has a style attribute %q (not covered by the CSP)", tag, val)
	case name == "href" || name == "src" || name == "action" || name == "data-url":
		if !isHTTP(val) {
			t.Errorf("<%s %s=%q>: not an http(s) URL", tag, name, val)
		}
	}
}

func isURLMeta(name string) bool {
	return name == "og:image" || name == "og:url" || name == "twitter:image"
}

func isHTTP(u string) bool {
	l := strings.ToLower(u)
	return strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")
}

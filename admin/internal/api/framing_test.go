package api

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
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

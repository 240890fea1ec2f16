//go:build !race

package server

import (
	"net/netip"
	"testing"

	"kurz/shared/clientip"
)

// The hit path must not allocate: asserted, not hoped for. The click
// hand-off is the real pipeline.
func TestHotPathZeroAllocs(t *testing.T) {
	withP, _ := withPipeline(t)
	e := newEnv(t, withP, geoOption(t))
	e.addLink(linkRow{Alias: "hot", URL: "https://example.com/landing?utm_source=x"})
	e.addLink(targetedLink())
	tests := []struct {
		name, path, ua string
		headers        map[string]string
	}{
		{"direct", "/hot", windowsUA, nil},
		{"direct with visitor query", "/hot?fbclid=1&utm_source=z", windowsUA, nil},
		{"targeted geo+device+language", "/tgt", macUA, map[string]string{"Accept-Language": "de-DE,de;q=0.9,fr;q=0.8"}},
		{"targeted device match", "/tgt", iphoneUA, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := hotCtx(t, e, tt.path, tt.ua, tt.headers)
			if n := testing.AllocsPerRun(2000, func() { serveLoop(ctx, e.srv) }); n != 0 {
				t.Fatalf("%v allocs per request, want 0", n)
			}
		})
	}
}

// The country header's peer check (KURZ_TRUSTED_PROXIES set) allocates
// nothing, whether the peer (203.0.113.9 in hotCtx) is trusted or not.
func TestHotPathZeroAllocsCountryHeader(t *testing.T) {
	withP, _ := withPipeline(t)
	for name, trusted := range map[string]string{"trusted peer": "203.0.113.0/24", "untrusted peer": "10.0.0.0/8"} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, withP, geoOption(t), func(c *Config) {
				c.CountryHeader = "X-Kurz-Country"
				c.Resolver = clientip.New([]netip.Prefix{netip.MustParsePrefix(trusted)})
			})
			e.addLink(linkRow{Alias: "hot", URL: "https://example.com/landing"})
			e.addLink(targetedLink())
			for _, path := range []string{"/hot", "/tgt"} {
				ctx := hotCtx(t, e, path, windowsUA, map[string]string{"X-Kurz-Country": "gb"})
				if n := testing.AllocsPerRun(2000, func() { serveLoop(ctx, e.srv) }); n != 0 {
					t.Fatalf("%s: %v allocs per request, want 0", path, n)
				}
				if path == "/tgt" {
					// GeoIP says JP for the peer, which no rule targets.
					want := map[string]string{"trusted peer": "https://example.com/gb", "untrusted peer": "https://example.com/default"}[name]
					if got := string(ctx.Response.Header.Peek("Location")); got != want {
						t.Fatalf("Location %q, want %q", got, want)
					}
				}
			}
		})
	}
}

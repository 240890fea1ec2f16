//go:build !race

package server

import "testing"

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

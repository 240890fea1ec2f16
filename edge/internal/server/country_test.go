package server

import (
	"bytes"
	"log/slog"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"kurz/shared/clientip"
	"kurz/shared/geoip"
)

// TestCountryHeaderTrust: with KURZ_TRUSTED_PROXIES set, the country
// header is believed only from a trusted TCP peer; anyone else gets GeoIP
// on their address (and their header is not recorded with the click).
// Without trusted proxies every peer is believed, and start-up says so.
func TestCountryHeaderTrust(t *testing.T) {
	mmdb := filepath.Join(t.TempDir(), "geo.mmdb")
	if err := geoip.WriteTestDB(mmdb, map[string]string{"198.51.100.0/24": "FR"}); err != nil {
		t.Fatal(err)
	}
	db, err := geoip.Open(mmdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	geo := linkRow{Alias: "geo", URL: "https://example.com/default",
		Geo: [][2]string{{"DE", "https://example.com/de"}, {"FR", "https://example.com/fr"}}}

	t.Run("trusted proxies set", func(t *testing.T) {
		var logs bytes.Buffer
		e := newEnv(t, func(c *Config) {
			c.CountryHeader = "X-Kurz-Country"
			c.CountryOf = db.Country
			c.Resolver = clientip.New([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")})
			c.Log = slog.New(slog.NewTextHandler(&logs, nil))
		})
		if strings.Contains(logs.String(), "country header") {
			t.Fatalf("warning although the header is restricted to trusted proxies: %s", logs.String())
		}
		e.addLink(geo)
		plain := e.addLink(linkRow{Alias: "plain", URL: "https://example.com/plain"})
		tests := []struct {
			name, peer, xff, country, want string
			hit                            [2]byte // country recorded with a plain link's click
		}{
			{"trusted ipv4 peer", "127.0.0.1", "198.51.100.9", "de", "https://example.com/de", [2]byte{'D', 'E'}},
			{"trusted ipv6 peer", "::1", "", "DE", "https://example.com/de", [2]byte{'D', 'E'}},
			{"trusted mapped peer", "::ffff:127.0.0.1", "", "DE", "https://example.com/de", [2]byte{'D', 'E'}},
			{"untrusted peer: GeoIP", "198.51.100.7", "", "DE", "https://example.com/fr", [2]byte{}},
			{"untrusted peer spoofing xff", "198.51.100.7", "127.0.0.1", "DE", "https://example.com/fr", [2]byte{}},
			{"untrusted peer, no GeoIP data", "203.0.113.5", "", "DE", "https://example.com/default", [2]byte{}},
			{"trusted peer without header: GeoIP on the client", "127.0.0.1", "198.51.100.9", "", "https://example.com/fr", [2]byte{}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				h := map[string]string{}
				if tt.country != "" {
					h["X-Kurz-Country"] = tt.country
				}
				if tt.xff != "" {
					h["X-Forwarded-For"] = tt.xff
				}
				expect(t, e.do(req{path: "/geo", peer: tt.peer, headers: h}), 302, tt.want)
				expect(t, e.do(req{path: "/plain", peer: tt.peer, headers: h}), 302, "https://example.com/plain")
				if hit := e.rec.last(t); hit.LinkID != plain || hit.Country != tt.hit {
					t.Fatalf("click of link %d recorded country %q, want %q", hit.LinkID, hit.Country[:], tt.hit[:])
				}
			})
		}
	})

	t.Run("no trusted proxies", func(t *testing.T) {
		var logs bytes.Buffer
		e := newEnv(t, func(c *Config) {
			c.CountryHeader = "X-Kurz-Country"
			c.CountryOf = db.Country
			c.Log = slog.New(slog.NewTextHandler(&logs, nil))
		})
		if n := strings.Count(logs.String(), "country header is believed from every peer"); n != 1 {
			t.Fatalf("%d start-up warnings, want 1:\n%s", n, logs.String())
		}
		if !strings.Contains(logs.String(), "header=X-Kurz-Country") || !strings.Contains(logs.String(), "level=WARN") {
			t.Fatalf("warning lacks the header name or level: %s", logs.String())
		}
		e.addLink(geo)
		for _, peer := range []string{"198.51.100.7", "203.0.113.5", "127.0.0.1"} {
			expect(t, e.do(req{path: "/geo", peer: peer, headers: map[string]string{"X-Kurz-Country": "DE"}}), 302, "https://example.com/de")
		}
		logs.Reset()
		for range 3 {
			e.do(req{path: "/geo"})
		}
		if logs.Len() != 0 {
			t.Fatalf("logged per request: %s", logs.String())
		}
	})

	t.Run("no header configured", func(t *testing.T) {
		var logs bytes.Buffer
		e := newEnv(t, func(c *Config) { c.CountryOf = db.Country; c.Log = slog.New(slog.NewTextHandler(&logs, nil)) })
		if logs.Len() != 0 {
			t.Fatalf("unexpected start-up log: %s", logs.String())
		}
		e.addLink(geo)
		// An unconfigured header is just another header.
		expect(t, e.do(req{path: "/geo", peer: "198.51.100.7", headers: map[string]string{"X-Kurz-Country": "DE"}}), 302, "https://example.com/fr")
	})
}

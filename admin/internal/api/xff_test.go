package api

import (
	"net/http"
	"net/netip"
	"testing"

	"kurz/shared/config"
)

// TestForwardedForLines: a request with several X-Forwarded-For lines is
// counted for the address all lines give together (read as one list, as
// the edge does), not for the first line, which the client may have sent
// itself.
func TestForwardedForLines(t *testing.T) {
	e := newEnv(t, func(c *config.Config) {
		c.AnonRateLimit = 10
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	})
	remaining := func(lines ...string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", e.http.URL+"/api/account", nil)
		req.Header["X-Forwarded-For"] = lines // one header line each
		r := e.send(req)
		if r.Status != http.StatusUnauthorized {
			t.Fatalf("status %d: %s", r.Status, r.Raw)
		}
		return r.Header.Get("X-RateLimit-Remaining")
	}
	// The client's own line first, our proxy's line after it.
	remaining("6.6.6.6", "198.51.100.7")
	remaining("6.6.6.6, 203.0.113.1", "198.51.100.7, 127.0.0.5")
	if got := remaining("198.51.100.7"); got != "7" {
		t.Errorf("third request of 198.51.100.7 leaves %s, want 7: the two-line requests were not counted for it", got)
	}
	if got := remaining("6.6.6.6"); got != "9" {
		t.Errorf("first request of 6.6.6.6 leaves %s, want 9: a client-sent first line was believed", got)
	}
}

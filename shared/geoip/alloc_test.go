//go:build !race

package geoip

import (
	"net/netip"
	"testing"
)

func TestCountryZeroAllocs(t *testing.T) {
	db := openTestDB(t, testNetworks)
	for _, s := range []string{"198.51.100.200", "::ffff:192.0.2.1", "2001:db8:1::5", "203.0.113.7"} {
		ip := netip.MustParseAddr(s)
		if n := testing.AllocsPerRun(200, func() { _ = db.Country(ip) }); n != 0 {
			t.Errorf("Country(%s): %v allocs per run, want 0", s, n)
		}
	}
}

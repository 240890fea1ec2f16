//go:build !race

package clientip

import (
	"net/netip"
	"testing"
)

func TestResolveAllocs(t *testing.T) {
	r := New([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")})
	peer := netip.MustParseAddr("10.1.2.3")
	xff := []byte("6.6.6.6, 198.51.100.7")
	if n := testing.AllocsPerRun(100, func() { r.Resolve(peer, xff) }); n != 0 {
		t.Fatalf("Resolve allocates %v times", n)
	}
	lines := [][]byte{[]byte("6.6.6.6"), []byte("198.51.100.7, 10.9.9.9")}
	if n := testing.AllocsPerRun(100, func() { r.ResolveLines(peer, lines) }); n != 0 {
		t.Fatalf("Resolve of two lines allocates %v times", n)
	}
}

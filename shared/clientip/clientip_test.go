package clientip

import (
	"net/netip"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	r := New([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")})
	tests := []struct {
		name, peer, xff, want string
	}{
		{"no xff", "203.0.113.9", "", "203.0.113.9"},
		{"untrusted peer ignores xff", "203.0.113.9", "1.2.3.4", "203.0.113.9"},
		{"trusted peer", "10.1.2.3", "198.51.100.7", "198.51.100.7"},
		{"spoofed left entries ignored", "10.1.2.3", "6.6.6.6, 198.51.100.7", "198.51.100.7"},
		{"chain of proxies", "10.1.2.3", "198.51.100.7, 10.9.9.9", "198.51.100.7"},
		{"all trusted", "10.1.2.3", "10.2.2.2, 10.9.9.9", "10.2.2.2"},
		{"garbage stops", "10.1.2.3", "198.51.100.7, nonsense", "10.1.2.3"},
		{"ipv6 peer", "::1", "2001:db8::5", "2001:db8::5"},
		{"port form", "10.1.2.3", "198.51.100.7:4711", "198.51.100.7"},
		{"bracket form", "10.1.2.3", "[2001:db8::7]:443", "2001:db8::7"},
		{"mapped peer", "::ffff:10.1.2.3", "198.51.100.7", "198.51.100.7"},
		{"empty elements skipped", "10.1.2.3", "198.51.100.7, ,", "198.51.100.7"},
		{"only empty elements", "10.1.2.3", " , ", "10.1.2.3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Resolve(netip.MustParseAddr(tt.peer), []byte(tt.xff))
			if got != netip.MustParseAddr(tt.want) {
				t.Errorf("got %v want %v", got, tt.want)
			}
		})
	}
}

// TestResolveLines: several X-Forwarded-For lines are one list, read as if
// joined with "," in the order received, through either entry point.
func TestResolveLines(t *testing.T) {
	r := New([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")})
	peer := netip.MustParseAddr("10.1.2.3")
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"none", nil, "10.1.2.3"},
		// The client sent a line of its own, our proxy added another: the
		// first line alone would let the client pick its address.
		{"client line then proxy line", []string{"6.6.6.6", "198.51.100.7"}, "198.51.100.7"},
		{"trusted hop in the last line", []string{"6.6.6.6, 198.51.100.7", "10.9.9.9"}, "198.51.100.7"},
		{"all trusted across lines", []string{"10.2.2.2", "10.3.3.3, 10.9.9.9"}, "10.2.2.2"},
		{"empty line", []string{"198.51.100.7", ""}, "198.51.100.7"},
		{"garbage in an earlier line stops", []string{"nonsense", "10.9.9.9"}, "10.9.9.9"},
		{"ipv6 across lines", []string{"2001:db8::1", "[2001:db8::7]:443, 10.9.9.9"}, "2001:db8::7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := netip.MustParseAddr(tt.want)
			joined := []byte(strings.Join(tt.lines, ","))
			var lines [][]byte
			for _, l := range tt.lines {
				lines = append(lines, []byte(l))
			}
			got := map[string]netip.Addr{
				"ResolveLines":    r.ResolveLines(peer, lines),
				"Resolve(joined)": r.Resolve(peer, joined),
				"ResolveStrings":  r.ResolveStrings(peer, tt.lines),
			}
			for how, a := range got {
				if a != want {
					t.Errorf("%s = %v, want %v", how, a, want)
				}
			}
		})
	}
}

func BenchmarkResolve(b *testing.B) {
	r := New([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")})
	peer := netip.MustParseAddr("10.1.2.3")
	xff := []byte("6.6.6.6, 198.51.100.7")
	b.ReportAllocs()
	for b.Loop() {
		r.Resolve(peer, xff)
	}
}

func TestParseIPv4(t *testing.T) {
	for _, s := range []string{"1.2.3.4", "0.0.0.0", "255.255.255.255"} {
		if a, ok := parseIPv4([]byte(s)); !ok || a.String() != s {
			t.Errorf("%s: got %v %v", s, a, ok)
		}
	}
	for _, s := range []string{"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1..2.3", "a.b.c.d", "1.2.3.4 "} {
		if _, ok := parseIPv4([]byte(s)); ok {
			t.Errorf("%q parsed", s)
		}
	}
}

func TestTrusted(t *testing.T) {
	r := New([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")})
	if !r.HasTrusted() || New(nil).HasTrusted() {
		t.Fatal("HasTrusted wrong")
	}
	for peer, want := range map[string]bool{"127.0.0.1": true, "::1": true, "::ffff:127.0.0.9": true, "198.51.100.7": false, "::2": false} {
		if got := r.Trusted(netip.MustParseAddr(peer)); got != want {
			t.Errorf("Trusted(%s) = %v, want %v", peer, got, want)
		}
	}
	if New(nil).Trusted(netip.MustParseAddr("127.0.0.1")) {
		t.Error("a resolver without networks trusts a peer")
	}
}

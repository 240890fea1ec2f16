package dnscheck

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"kurz/admin/internal/dnscheck/dnstest"
)

func addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, 0, len(s))
	for _, v := range s {
		out = append(out, netip.MustParseAddr(v))
	}
	return out
}

func TestParseExpect(t *testing.T) {
	tests := []struct {
		in   string
		want Expect
		bad  bool
	}{
		{in: "CNAME edge.example.net.", want: Expect{CNAME: "edge.example.net"}},
		{in: "cname  Edge.Example.NET", want: Expect{CNAME: "edge.example.net"}},
		{in: "ALIAS edge.example.net", want: Expect{CNAME: "edge.example.net"}},
		{in: "A 203.0.113.7", want: Expect{Addrs: addrs("203.0.113.7")}},
		{in: "A 203.0.113.7 203.0.113.8", want: Expect{Addrs: addrs("203.0.113.7", "203.0.113.8")}},
		{in: "AAAA 2001:db8::1", want: Expect{Addrs: addrs("2001:db8::1")}},
		{in: "", bad: true},
		{in: "CNAME", bad: true},
		{in: "CNAME a.example b.example", bad: true},
		{in: "A not-an-ip", bad: true},
		{in: "TXT hello", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseExpect(tt.in)
		if (err != nil) != tt.bad {
			t.Errorf("%q: err %v", tt.in, err)
			continue
		}
		if got.CNAME != tt.want.CNAME || !slices.Equal(got.Addrs, tt.want.Addrs) {
			t.Errorf("%q: %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestCheck runs every verdict against a real DNS exchange with a local
// server, through Go's own resolver.
func TestCheck(t *testing.T) {
	srv := dnstest.Start(t, dnstest.Zone{
		"edge.kurz.test":       {Addrs: addrs("192.0.2.10", "2001:db8::10")},
		"go.brand.test":        {CNAME: "edge.kurz.test"},
		"chain.brand.test":     {CNAME: "cdn.brand.test"},
		"cdn.brand.test":       {CNAME: "edge.kurz.test"},
		"flat.brand.test":      {Addrs: addrs("192.0.2.10")},
		"v6.brand.test":        {Addrs: addrs("2001:db8::10")},
		"other.brand.test":     {Addrs: addrs("198.51.100.4")},
		"parked.brand.test":    {CNAME: "parking.example.test"},
		"parking.example.test": {Addrs: addrs("198.51.100.99")},
		"empty.brand.test":     {},
		"broken.brand.test":    {ServFail: true},
		"slow.brand.test":      {Silent: true},
		"nowhere.kurz.test":    {ServFail: true},
	})
	r := NewResolver(srv.Addr)
	viaName := Expect{CNAME: "edge.kurz.test"}
	viaAddr := Expect{Addrs: addrs("192.0.2.10")}
	tests := []struct {
		host    string
		e       Expect
		want    Verdict
		cname   string
		hasAddr string
		reason  string
	}{
		{host: "go.brand.test", e: viaName, want: PointsHere, cname: "edge.kurz.test"},
		{host: "GO.brand.test.", e: viaName, want: PointsHere, cname: "edge.kurz.test"},
		{host: "chain.brand.test", e: viaName, want: PointsHere, cname: "edge.kurz.test"},
		{host: "flat.brand.test", e: viaName, want: PointsHere, hasAddr: "192.0.2.10"},
		{host: "v6.brand.test", e: viaName, want: PointsHere, hasAddr: "2001:db8::10"},
		{host: "flat.brand.test", e: viaAddr, want: PointsHere},
		{host: "go.brand.test", e: viaAddr, want: PointsHere, cname: "edge.kurz.test"},
		{host: "v6.brand.test", e: viaAddr, want: Elsewhere},
		{host: "other.brand.test", e: viaName, want: Elsewhere, hasAddr: "198.51.100.4"},
		{host: "parked.brand.test", e: viaName, want: Elsewhere, cname: "parking.example.test", hasAddr: "198.51.100.99"},
		{host: "missing.brand.test", e: viaName, want: Missing},
		{host: "empty.brand.test", e: viaName, want: Missing},
		{host: "broken.brand.test", e: viaName, want: Unknown, reason: "lookup of broken.brand.test failed"},
		{host: "slow.brand.test", e: viaName, want: Unknown, reason: "no answer in time"},
		{host: "other.brand.test", e: Expect{CNAME: "nowhere.kurz.test"}, want: Unknown, reason: "this service's name nowhere.kurz.test does not resolve"},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			got := Check(ctx, r, tt.host, tt.e)
			if got.Verdict != tt.want {
				t.Fatalf("verdict %d, want %d: %+v", got.Verdict, tt.want, got)
			}
			if got.CNAME != tt.cname {
				t.Errorf("cname %q, want %q", got.CNAME, tt.cname)
			}
			if tt.hasAddr != "" && !slices.Contains(got.Addrs, netip.MustParseAddr(tt.hasAddr)) {
				t.Errorf("addresses %v lack %s", got.Addrs, tt.hasAddr)
			}
			if !strings.Contains(got.Reason, tt.reason) {
				t.Errorf("reason %q, want %q in it", got.Reason, tt.reason)
			}
		})
	}
}

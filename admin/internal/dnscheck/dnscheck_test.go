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
		"edge.kurz.net":       {Addrs: addrs("192.0.2.10", "2001:db8::10")},
		"go.brand.net":        {CNAME: "edge.kurz.net"},
		"chain.brand.net":     {CNAME: "cdn.brand.net"},
		"cdn.brand.net":       {CNAME: "edge.kurz.net"},
		"flat.brand.net":      {Addrs: addrs("192.0.2.10")},
		"v6.brand.net":        {Addrs: addrs("2001:db8::10")},
		"other.brand.net":     {Addrs: addrs("198.51.100.4")},
		"parked.brand.net":    {CNAME: "parking.example.net"},
		"parking.example.net": {Addrs: addrs("198.51.100.99")},
		"empty.brand.net":     {},
		"broken.brand.net":    {ServFail: true},
		"slow.brand.net":      {Silent: true},
		"nowhere.kurz.net":    {ServFail: true},
	})
	r := NewResolver(srv.Addr)
	viaName := Expect{CNAME: "edge.kurz.net"}
	viaAddr := Expect{Addrs: addrs("192.0.2.10")}
	tests := []struct {
		host    string
		e       Expect
		want    Verdict
		cname   string
		hasAddr string
		reason  string
	}{
		{host: "go.brand.net", e: viaName, want: PointsHere, cname: "edge.kurz.net"},
		{host: "GO.brand.net.", e: viaName, want: PointsHere, cname: "edge.kurz.net"},
		{host: "chain.brand.net", e: viaName, want: PointsHere, cname: "edge.kurz.net"},
		{host: "flat.brand.net", e: viaName, want: PointsHere, hasAddr: "192.0.2.10"},
		{host: "v6.brand.net", e: viaName, want: PointsHere, hasAddr: "2001:db8::10"},
		{host: "flat.brand.net", e: viaAddr, want: PointsHere},
		{host: "go.brand.net", e: viaAddr, want: PointsHere, cname: "edge.kurz.net"},
		{host: "v6.brand.net", e: viaAddr, want: Elsewhere},
		{host: "other.brand.net", e: viaName, want: Elsewhere, hasAddr: "198.51.100.4"},
		{host: "parked.brand.net", e: viaName, want: Elsewhere, cname: "parking.example.net", hasAddr: "198.51.100.99"},
		{host: "missing.brand.net", e: viaName, want: Missing},
		{host: "empty.brand.net", e: viaName, want: Missing},
		{host: "broken.brand.net", e: viaName, want: Unknown, reason: "lookup of broken.brand.net failed"},
		{host: "slow.brand.net", e: viaName, want: Unknown, reason: "no answer in time"},
		{host: "other.brand.net", e: Expect{CNAME: "nowhere.kurz.net"}, want: Unknown, reason: "this service's name nowhere.kurz.net does not resolve"},
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
			if (tt.reason == "") != (got.Reason == "") || !strings.Contains(got.Reason, tt.reason) {
				t.Errorf("reason %q, want %q", got.Reason, tt.reason)
			}
		})
	}
}

// TestCheckRefusesPrivateNames: names this host resolves privately are
// never looked up, so a user cannot read internal addresses off the page.
func TestCheckRefusesPrivateNames(t *testing.T) {
	srv := dnstest.Start(t, dnstest.Zone{"postgres": {Addrs: addrs("10.0.0.5")}, "db.cluster.local": {Addrs: addrs("10.0.0.6")}})
	r := NewResolver(srv.Addr)
	for _, host := range []string{"localhost", "postgres", "db.cluster.local", "api.default.svc", "metadata.google.internal",
		"printer.local", "router.home.arpa", "x.localhost", "foo.test", "192.0.2.1", "[2001:db8::1]", "10.0.0.5"} {
		res := Check(context.Background(), r, host, Expect{CNAME: "edge.kurz.net"})
		if res.Verdict != Unknown || res.Reason == "" || len(res.Addrs) != 0 {
			t.Errorf("%s: %+v", host, res)
		}
	}
	if n := srv.Queries(); n != 0 {
		t.Errorf("%d queries sent for names that are not public", n)
	}
	for _, host := range []string{"go.example.com", "xn--bcher-kva.example.org", "a.b.c.co.uk"} {
		if why := Checkable(host); why != "" {
			t.Errorf("%s refused: %s", host, why)
		}
	}
}

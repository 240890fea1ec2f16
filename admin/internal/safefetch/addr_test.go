package safefetch

import (
	"net/netip"
	"testing"
)

func TestIsAllowed(t *testing.T) {
	allowed := []string{
		"8.8.8.8", "1.1.1.1", "93.184.215.14", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e",
		// range boundaries just outside refused blocks
		"9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "126.255.255.255", "128.0.0.0",
		"169.253.255.255", "169.255.0.0", "172.15.255.255", "172.32.0.0", "192.167.255.255", "192.169.0.0",
		"198.17.255.255", "198.20.0.0", "223.255.255.255", "1.0.0.0",
		"::ffff:8.8.8.8",   // IPv4-mapped public
		"64:ff9b::808:808", // NAT64 of 8.8.8.8
		"2002:808:808::1",  // 6to4 of 8.8.8.8
	}
	denied := []string{
		"127.0.0.1", "127.255.255.254", "::1", // loopback
		"10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255", "192.168.0.1", "192.168.255.255", // RFC 1918
		"169.254.169.254", "169.254.0.1", "fe80::1", "fe80::1%eth0", // link-local, metadata
		"0.0.0.0", "::", "0.1.2.3", // unspecified, this network
		"224.0.0.1", "239.255.255.250", "ff02::1", "ff05::1:3", // multicast
		"255.255.255.255", "240.0.0.1", // broadcast, reserved
		"100.64.0.1", "100.127.255.255", // CGNAT
		"fc00::1", "fd12:3456::1", // ULA
		"192.0.2.1", "198.51.100.7", "203.0.113.9", "2001:db8::1", "3fff::1", // documentation
		"192.0.0.8", "198.18.0.1", "198.19.255.255", "192.88.99.1", // special purpose
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:0.0.0.0", // IPv4-mapped
		"::127.0.0.1", "::10.0.0.1", // IPv4-compatible
		"64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::1", // NAT64 of refused, local-use NAT64
		"2002:7f00:1::1", "2002:a00:1::", // 6to4 of refused
		"2001::1", "100::1", "fec0::1", // Teredo, discard, site-local
	}
	for _, s := range allowed {
		if !IsAllowed(netip.MustParseAddr(s)) {
			t.Errorf("IsAllowed(%s) = false, want true", s)
		}
	}
	for _, s := range denied {
		if IsAllowed(netip.MustParseAddr(s)) {
			t.Errorf("IsAllowed(%s) = true, want false", s)
		}
	}
	if IsAllowed(netip.Addr{}) {
		t.Error("IsAllowed(zero Addr) = true")
	}
}

package safefetch

import "net/netip"

// deniedPrefixes are special-purpose ranges that netip's predicates do not
// cover (IANA IPv4/IPv6 special-purpose registries).
var deniedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT shared space
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("192.88.99.0/24"),  // 6to4 relay anycast
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, incl. 255.255.255.255
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated), incl. ::1 and ::
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments, incl. Teredo
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("3fff::/20"),       // documentation (RFC 9637)
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
}

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96") // well-known NAT64: embeds an IPv4 in the last 32 bits
	sixToFour = netip.MustParsePrefix("2002::/16")    // 6to4: embeds an IPv4 in bits 16–47
)

// IsAllowed reports whether addr is a public unicast address a fetch may
// connect to. It refuses loopback, private (RFC 1918, fc00::/7), link-local
// (incl. the 169.254.169.254 metadata service), unspecified, multicast,
// broadcast, CGNAT, documentation and other special-purpose ranges, and the
// IPv4-mapped, NAT64 and 6to4 forms of refused IPv4 addresses.
func IsAllowed(addr netip.Addr) bool {
	a := addr.WithZone("").Unmap()
	if !a.IsValid() || !a.IsGlobalUnicast() || a.IsPrivate() {
		// IsGlobalUnicast is false for loopback, link-local, multicast,
		// unspecified and the IPv4 broadcast address.
		return false
	}
	for _, p := range deniedPrefixes {
		if p.Contains(a) {
			return false
		}
	}
	if v4, ok := embeddedIPv4(a); ok {
		return IsAllowed(v4)
	}
	return true
}

// embeddedIPv4 extracts the IPv4 address a NAT64 or 6to4 address reaches.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	b := a.As16()
	switch {
	case nat64.Contains(a):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}

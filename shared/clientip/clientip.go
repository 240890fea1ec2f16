// Package clientip finds the visitor's address: the TCP peer, or the
// right-most untrusted address of X-Forwarded-For when the peer is one of
// the configured trusted proxies. It works on bytes and allocates nothing,
// so the edge can call it per request.
package clientip

import (
	"net/netip"
)

// Resolver holds the trusted proxy networks.
type Resolver struct {
	trusted []netip.Prefix
}

// New returns a Resolver trusting the given networks.
func New(trusted []netip.Prefix) *Resolver { return &Resolver{trusted: trusted} }

// HasTrusted reports whether any trusted proxy network is configured.
func (r *Resolver) HasTrusted() bool { return len(r.trusted) > 0 }

// Trusted reports whether a is one of the trusted proxies.
func (r *Resolver) Trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range r.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Resolve returns the client address. Walking X-Forwarded-For from the
// right and skipping trusted hops means a client cannot spoof its address by
// sending its own X-Forwarded-For: only entries appended by our proxies are
// believed.
func (r *Resolver) Resolve(peer netip.Addr, xff []byte) netip.Addr {
	peer = peer.Unmap()
	if len(xff) == 0 || !r.Trusted(peer) {
		return peer
	}
	end := len(xff)
	for end > 0 {
		start := end - 1
		for start >= 0 && xff[start] != ',' {
			start--
		}
		a, ok := parse(trim(xff[start+1 : end]))
		if !ok {
			return peer
		}
		if !r.Trusted(a) {
			return a
		}
		peer = a
		end = start
		if end < 0 {
			break
		}
	}
	return peer
}

func trim(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// parse reads an IPv4 or IPv6 address from b without allocating; it also
// accepts "ip:port" and "[ipv6]:port" forms some proxies send.
func parse(b []byte) (netip.Addr, bool) {
	if len(b) == 0 || len(b) > 64 {
		return netip.Addr{}, false
	}
	if b[0] == '[' {
		for i := 1; i < len(b); i++ {
			if b[i] == ']' {
				b = b[1:i]
				break
			}
		}
	} else if colons(b) == 1 {
		for i := range b {
			if b[i] == ':' {
				b = b[:i]
				break
			}
		}
	}
	if a, ok := parseIPv4(b); ok {
		return a, true
	}
	// IPv6 goes through the standard parser, which may allocate; IPv4 is
	// the common case behind load balancers.
	a, err := netip.ParseAddr(string(b))
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

func colons(b []byte) int {
	n := 0
	for _, c := range b {
		if c == ':' {
			n++
		}
	}
	return n
}

func parseIPv4(b []byte) (netip.Addr, bool) {
	var out [4]byte
	part, digits, val := 0, 0, 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			if digits > 0 && val == 0 { // leading zero
				return netip.Addr{}, false
			}
			val = val*10 + int(c-'0')
			digits++
			if val > 255 {
				return netip.Addr{}, false
			}
		case c == '.':
			if digits == 0 || part == 3 {
				return netip.Addr{}, false
			}
			out[part] = byte(val)
			part, digits, val = part+1, 0, 0
		default:
			return netip.Addr{}, false
		}
	}
	if part != 3 || digits == 0 {
		return netip.Addr{}, false
	}
	out[3] = byte(val)
	return netip.AddrFrom4(out), true
}

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
// believed. Empty list elements are skipped (RFC 9110, 5.6.1).
//
// xff is the whole list: a request with several X-Forwarded-For lines must
// pass them all, through ResolveLines or ResolveStrings, or joined with
// "," in the order received. They are one list (RFC 9110, 5.3), and a proxy
// that adds a line of its own instead of extending the client's puts the
// nearest hop last: reading only the first line would let a client who
// sends one choose its address.
func (r *Resolver) Resolve(peer netip.Addr, xff []byte) netip.Addr {
	peer = peer.Unmap()
	if !r.Trusted(peer) {
		return peer
	}
	a, _ := walk(r, peer, xff)
	return a
}

// ResolveLines is Resolve over the X-Forwarded-For lines of a request in
// the order received (fasthttp's PeekAll).
func (r *Resolver) ResolveLines(peer netip.Addr, lines [][]byte) netip.Addr {
	return resolveLines(r, peer, lines)
}

// ResolveStrings is ResolveLines for lines as net/http holds them
// (http.Header.Values).
func (r *Resolver) ResolveStrings(peer netip.Addr, lines []string) netip.Addr {
	return resolveLines(r, peer, lines)
}

func resolveLines[T string | []byte](r *Resolver, peer netip.Addr, lines []T) netip.Addr {
	peer = peer.Unmap()
	if !r.Trusted(peer) {
		return peer
	}
	for i := len(lines) - 1; i >= 0; i-- {
		var done bool
		if peer, done = walk(r, peer, lines[i]); done {
			return peer
		}
	}
	return peer
}

// walk reads one line of the list from the right, starting from hop, a
// trusted address. done reports that a is the answer: an untrusted entry
// (the client) or, at an entry that is not an address, the last trusted
// hop. Otherwise a is the last trusted hop, to go on from in the line
// before.
func walk[T string | []byte](r *Resolver, hop netip.Addr, line T) (a netip.Addr, done bool) {
	end := len(line)
	for end >= 0 {
		start := end - 1
		for start >= 0 && line[start] != ',' {
			start--
		}
		entry := trim(line[start+1 : end])
		end = start
		if len(entry) == 0 {
			continue
		}
		a, ok := parse(entry)
		if !ok {
			return hop, true
		}
		if !r.Trusted(a) {
			return a, true
		}
		hop = a
	}
	return hop, false
}

func trim[T string | []byte](b T) T {
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
func parse[T string | []byte](b T) (netip.Addr, bool) {
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
		for i := 0; i < len(b); i++ {
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

func colons[T string | []byte](b T) int {
	n := 0
	for i := 0; i < len(b); i++ {
		if b[i] == ':' {
			n++
		}
	}
	return n
}

func parseIPv4[T string | []byte](b T) (netip.Addr, bool) {
	var out [4]byte
	part, digits, val := 0, 0, 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
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

package catalog

import (
	"context"
	"fmt"
	"sync/atomic"

	"kurz/shared/link"
)

// Domain is a branded domain as the edge serves it.
type Domain struct {
	ID           int64
	Host         string // as stored in domains.host and links.host
	RedirectRoot string // validated; '' = none
	Redirect404  string // validated; '' = none
}

// domainSet is the set of branded domains, swapped whole on reload. Every
// domain is held, so the Host header of a request (attacker-controlled)
// never causes a database query.
type domainSet struct {
	byHost   atomic.Pointer[map[string]*Domain]
	reserved string // the default domain's name (link.HostName)
}

// newDomainSet returns an empty set (everything is the default domain).
// baseHost is the default domain's host[:port]: no branded domain is ever
// served under its name, whatever port either carries.
func newDomainSet(baseHost string) *domainSet {
	d := &domainSet{reserved: link.HostName(baseHost)}
	d.byHost.Store(&map[string]*Domain{})
	return d
}

// reload reads every branded domain from src.
func (d *domainSet) reload(ctx context.Context, src Source) error {
	rows, err := src.EdgeDomains(ctx)
	if err != nil {
		return fmt.Errorf("reload domains: %w", err)
	}
	m := make(map[string]*Domain, 2*len(rows))
	for _, r := range rows {
		// The admin API refuses these; a row from before that check, or
		// a base URL changed since, must still not capture the default
		// domain's visitors.
		if link.HostName(r.Host) == d.reserved {
			continue
		}
		dom := &Domain{ID: r.ID, Host: r.Host, RedirectRoot: safeURL(r.RedirectRoot), Redirect404: safeURL(r.Redirect404)}
		m[r.Host] = dom
	}
	// Also index by name without port ("port ignored"), unless a stored
	// host already claims that exact key.
	for _, dom := range m {
		if name := link.HostName(dom.Host); name != dom.Host {
			if _, taken := m[name]; !taken {
				m[name] = dom
			}
		}
	}
	d.byHost.Store(&m)
	return nil
}

// lookup returns the branded domain named by a Host header (compared
// case-insensitively; the port is tried exact, then ignored), or nil for
// the default domain. It does not allocate.
func (d *domainSet) lookup(hostHeader []byte) *Domain {
	m := *d.byHost.Load()
	if len(m) == 0 || len(hostHeader) == 0 || len(hostHeader) > 255 {
		return nil
	}
	var buf [256]byte
	n := copy(buf[:], hostHeader)
	h := buf[:n]
	for i, c := range h {
		if 'A' <= c && c <= 'Z' {
			h[i] = c + ('a' - 'A')
		}
	}
	if n > 0 && h[n-1] == '.' { // trailing-dot FQDN form
		h = h[:n-1]
	}
	if dom, ok := m[string(h)]; ok {
		return dom
	}
	if i := portIndex(h); i >= 0 {
		if dom, ok := m[string(h[:i])]; ok {
			return dom
		}
	}
	return nil
}

// len returns the number of branded domains.
func (d *domainSet) len() int {
	seen := map[*Domain]bool{}
	for _, dom := range *d.byHost.Load() {
		seen[dom] = true
	}
	return len(seen)
}

// portIndex returns the index of the ':' before a port, or -1; IPv6
// literals keep their inner colons.
func portIndex(h []byte) int {
	for i := len(h) - 1; i >= 0; i-- {
		switch h[i] {
		case ':':
			return i
		case ']':
			return -1
		}
		if h[i] < '0' || h[i] > '9' {
			return -1
		}
	}
	return -1
}

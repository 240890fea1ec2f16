// Package dnscheck tells whether a branded domain's DNS points at this
// service: the record the operator asks users to create (KURZ_DOMAIN_DNS,
// a CNAME to the default short domain's name without it) is compared with
// what the domain resolves to. It only looks names up; it never connects
// to the domain, so a check cannot be turned against internal addresses.
package dnscheck

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// Timeout is what a check should be given: every lookup of it together.
const Timeout = 4 * time.Second

// Verdict is what a check found.
type Verdict int

const (
	// PointsHere: the domain's CNAME is the expected name, or it resolves
	// to one of the expected addresses.
	PointsHere Verdict = iota
	// Missing: the name does not exist or has no address yet.
	Missing
	// Elsewhere: the name resolves, to other addresses.
	Elsewhere
	// Unknown: the lookup failed (timeout, server failure) or this
	// service's own name does not resolve here, so nothing can be said.
	Unknown
)

// Result is one check's outcome, with what was seen, for the page.
type Result struct {
	Verdict Verdict
	Host    string       // the domain checked
	CNAME   string       // where its CNAME leads: the expected name when the chain reaches it, else the first hop
	Addrs   []netip.Addr // what Host resolves to
	Want    []netip.Addr // the service's addresses it was compared with
	Reason  string       // for Unknown: why
}

// Expect is the record users are told to create: a CNAME to a name, or
// A/AAAA records with addresses.
type Expect struct {
	CNAME string       // lower case, without the final dot
	Addrs []netip.Addr // for A/AAAA records
}

// ParseExpect reads a record as KURZ_DOMAIN_DNS states it ("CNAME
// edge.example.net.", "A 203.0.113.7", "AAAA 2001:db8::1", several
// addresses separated by spaces). Another form is an error: the operator
// then gets no check rather than a wrong one.
func ParseExpect(record string) (Expect, error) {
	f := strings.Fields(record)
	if len(f) < 2 {
		return Expect{}, fmt.Errorf("dns record %q: want a type and a value", record)
	}
	switch strings.ToUpper(f[0]) {
	case "CNAME", "ALIAS", "ANAME":
		if len(f) != 2 {
			return Expect{}, fmt.Errorf("dns record %q: one name after %s", record, f[0])
		}
		return Expect{CNAME: normName(f[1])}, nil
	case "A", "AAAA":
		var e Expect
		for _, v := range f[1:] {
			a, err := netip.ParseAddr(v)
			if err != nil {
				return Expect{}, fmt.Errorf("dns record %q: %w", record, err)
			}
			e.Addrs = append(e.Addrs, a.Unmap())
		}
		return e, nil
	}
	return Expect{}, fmt.Errorf("dns record %q: type must be CNAME, A or AAAA", record)
}

// Check looks host up with r and compares it with e, within ctx's
// deadline. Only public DNS names are looked up (Checkable): a user's
// "domain" must not be a way to read this host's own view of internal
// names.
func Check(ctx context.Context, r *net.Resolver, host string, e Expect) Result {
	res := Result{Host: normName(host)}
	if why := Checkable(res.Host); why != "" {
		return unknown(res, why)
	}
	addrs, err := lookup(ctx, r, res.Host)
	switch {
	case isNotFound(err):
		res.Verdict = Missing
		return res
	case err != nil:
		return unknown(res, "the lookup of "+res.Host+" failed: "+reason(ctx, err))
	}
	res.Addrs = addrs
	chain := cnames(ctx, r, res.Host, e.CNAME)
	if len(chain) > 0 {
		res.CNAME = chain[0]
	}
	if e.CNAME != "" && slices.Contains(chain, e.CNAME) {
		res.CNAME = e.CNAME
		res.Verdict = PointsHere
		return res
	}
	res.Want = e.Addrs
	if e.CNAME != "" {
		if res.Want, err = lookup(ctx, r, e.CNAME); err != nil {
			if ctx.Err() != nil {
				return unknown(res, "no answer in time")
			}
			return unknown(res, "this service's name "+e.CNAME+" does not resolve from here: "+reason(ctx, err))
		}
	}
	res.Verdict = Elsewhere
	if slices.ContainsFunc(res.Addrs, func(a netip.Addr) bool { return slices.Contains(res.Want, a) }) {
		res.Verdict = PointsHere
	}
	return res
}

// maxHops bounds a CNAME chain as resolvers do.
const maxHops = 8

// cnames is host's CNAME chain, up to stop. Go's resolver reports one hop
// or the whole chain's end depending on how the answer arrives, so each
// name is asked again until it is its own canonical name; a lookup that
// fails ends the chain (the addresses decide then).
func cnames(ctx context.Context, r *net.Resolver, host, stop string) []string {
	var chain []string
	for name := host; len(chain) < maxHops && name != stop; {
		canon, err := r.LookupCNAME(ctx, rooted(name))
		next := normName(canon)
		if err != nil || next == name || next == "" || slices.Contains(chain, next) {
			return chain
		}
		chain = append(chain, next)
		name = next
	}
	return chain
}

// Checkable says why a name is not looked up, "" when it is: IP
// addresses have no record to check, and names without a dot or under
// the special-use and private suffixes are what this host resolves
// privately (its /etc/hosts, a cluster's service names).
func Checkable(name string) string {
	n := strings.Trim(normName(name), "[]")
	if _, err := netip.ParseAddr(n); err == nil {
		return "the domain is an IP address: there is no DNS record to check"
	}
	if !strings.Contains(n, ".") {
		return "a name without a dot is not a public DNS name"
	}
	for _, suffix := range privateSuffixes {
		if n == suffix || strings.HasSuffix(n, "."+suffix) {
			return "names under ." + suffix + " are not public DNS names"
		}
	}
	return ""
}

// privateSuffixes are special-use or private names (RFC 6761, RFC 6762,
// RFC 8375, ICANN's .internal, Kubernetes' default cluster domain).
var privateSuffixes = []string{"localhost", "local", "internal", "home.arpa", "localdomain", "lan",
	"cluster.local", "svc", "invalid", "test", "example", "onion", "arpa"}

func unknown(res Result, why string) Result {
	res.Verdict, res.Reason = Unknown, why
	return res
}

// lookup returns the name's addresses, sorted; none is a not-found error.
func lookup(ctx context.Context, r *net.Resolver, name string) ([]netip.Addr, error) {
	ips, err := r.LookupNetIP(ctx, "ip", rooted(name))
	if err != nil {
		return nil, err
	}
	out := make([]netip.Addr, 0, len(ips))
	for _, a := range ips {
		out = append(out, a.Unmap())
	}
	slices.SortFunc(out, func(a, b netip.Addr) int { return a.Compare(b) })
	out = slices.Compact(out)
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no address", Name: name, IsNotFound: true}
	}
	return out, nil
}

func isNotFound(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de) && de.IsNotFound
}

// reason is a DNS error in fixed words for the page: the resolver's
// message can carry its own address ("dial udp 10.0.0.53:53: …").
func reason(ctx context.Context, err error) string {
	var de *net.DNSError
	switch {
	case ctx.Err() != nil, errors.As(err, &de) && de.IsTimeout, errors.Is(err, context.DeadlineExceeded):
		return "no answer in time"
	case errors.As(err, &de) && de.IsNotFound:
		return "no such name"
	case errors.As(err, &de) && de.IsTemporary:
		return "the DNS server failed to answer"
	}
	return "the DNS server could not be asked"
}

// rooted makes name absolute, so the resolver's search list never turns
// "go.example.com" into "go.example.com.corp.internal".
func rooted(name string) string { return name + "." }

// NewResolver is the system's resolver, or with server ("host:port") one
// that asks that server only (an operator's split-horizon view; tests).
func NewResolver(server string) *net.Resolver {
	if server == "" {
		return net.DefaultResolver
	}
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, server)
	}}
}

func normName(s string) string { return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), ".") }

package api

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	"kurz/shared/hostname"
	"kurz/shared/link"
)

// Redirect loops: what the admin refuses so that no visitor is sent in
// circles by kurz itself.
//
// Only hosts the caller controls count: the service's default short
// domain and the caller's own branded domains. A host that someone else
// registers as a branded domain changes nothing for anyone else: a
// redirect to it leaves kurz as a 302 to the internet, where DNS decides
// where it lands. It comes back to the edge only if that host really
// points at us, and then it is served as the registrant's short link on
// the registrant's domain, which cannot redirect back into its own
// domains either. So registering a big public site (say www.wikipedia.org)
// as a branded domain breaks no other tenant's links to it; a registrant
// whose DNS does not point at us only gets no visits. The only loop
// across two tenants needs each to point a link at the other's domain on
// purpose, and a browser ends it after a few hops.
//
// Hosts are compared as a browser resolves them (shared/hostname): case,
// a trailing dot, default ports, full-width and ideographic forms and
// Unicode versus punycode all name the same host. The caller's own domains
// match by name whatever the port, as the edge serves a domain's name on
// any port no other domain claims; the default domain matches by name and
// port (another port of it is another server).

// refuseLoops rejects URLs that point at one of the caller's short-link
// hosts: the default short domain or one of the caller's branded domains.
func (s *Server) refuseLoops(ctx context.Context, userID int64, urls []urlField) error {
	if len(urls) == 0 {
		return nil
	}
	names := make([]string, 0, len(urls))
	for _, u := range urls {
		if s.isDefaultHost(u.url) {
			return loopError(u.field)
		}
		names = append(names, urlHostName(u.url))
	}
	own, err := s.store.OwnHostNames(ctx, userID, names)
	if err != nil {
		return err
	}
	for _, u := range urls {
		if slices.Contains(own, urlHostName(u.url)) {
			return loopError(u.field)
		}
	}
	return nil
}

func loopError(field string) error {
	return BadRequest(field, "must not point to a short link of this service (redirect loop)")
}

// isDefaultHost reports whether a valid URL points at the default short
// domain.
func (s *Server) isDefaultHost(valid string) bool {
	return hostname.Key(link.HostOf(valid)) == hostname.Key(s.cfg.BaseHost)
}

// urlHostName is the mapped host name of a valid URL, without its port.
func urlHostName(valid string) string { return hostname.NameOf(link.HostOf(valid)) }

// A domain's redirects form a small graph over the caller's domains: a
// visit to a domain's root follows its root redirect, a visit to a path
// that names no link follows its 404 redirect. A redirect to another of
// the caller's domains continues there: at its root when it names the
// root, else at its 404 redirect (the path may name no link, now or after
// a delete). Every state has at most one successor, so a walk either ends
// or comes back to a state it saw: a loop.
type redirectState struct {
	domain int  // index in the caller's domains
	root   bool // at the root (else at a missing alias)
}

// redirectLoop checks the redirects in of domain d (d.ID 0: a domain
// being added) against the caller's other domains. It walks from the
// state of each redirect sent and names the first that leads into a loop,
// with the domain the loop passes through next.
func redirectLoop(d link.Domain, in *domainIn, others []link.Domain) error {
	doms := []link.Domain{d}
	for _, o := range others {
		if o.ID != d.ID {
			doms = append(doms, o)
		}
	}
	byName := make(map[string]int, len(doms))
	for i, o := range doms {
		byName[hostname.NameOf(o.Host)] = i
	}
	next := func(st redirectState) (redirectState, bool) {
		to := doms[st.domain].Redirect404
		if st.root {
			to = doms[st.domain].RedirectRoot
		}
		if to == "" {
			return st, false
		}
		i, ok := byName[urlHostName(to)]
		return redirectState{domain: i, root: isRootPath(to)}, ok
	}
	for _, start := range []struct {
		field string
		sent  *string
		root  bool
	}{{"redirectroot", in.RedirectRoot, true}, {"redirect404", in.Redirect404, false}} {
		if start.sent == nil || *start.sent == "" {
			continue
		}
		st, seen := redirectState{domain: 0, root: start.root}, map[redirectState]bool{}
		for !seen[st] {
			seen[st] = true
			var ok bool
			if st, ok = next(st); !ok {
				break
			}
			if seen[st] {
				return BadRequest(start.field, fmt.Sprintf(
					"must not lead back through the redirects of your domains (a redirect loop via %s)", doms[st.domain].Domain))
			}
		}
	}
	return nil
}

// refuseQRLoop rejects a link QR code's target that would bring its scans
// back to a QR code: its own scan or image URL on any host (the path names
// this code, so wherever it leads it is this code or nothing), or any QR
// scan URL on the default domain or the caller's own domains (scans would
// chain from code to code, possibly in a circle). code is "" for a code
// not yet created.
func (s *Server) refuseQRLoop(ctx context.Context, userID int64, code, target string) error {
	if target == "" {
		return nil
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil // validated before; unreachable
	}
	route, c, ok := qrPath(u.Path)
	if !ok {
		return nil
	}
	if code != "" && c == code {
		return qrLoopError()
	}
	if route != "q" {
		return nil
	}
	if s.isDefaultHost(target) {
		return qrLoopError()
	}
	own, err := s.store.OwnHostNames(ctx, userID, []string{urlHostName(target)})
	if err != nil {
		return err
	}
	if len(own) > 0 {
		return qrLoopError()
	}
	return nil
}

func qrLoopError() error {
	return BadRequest("data", "must not point to a QR code of this service (a scan loop); use the destination itself")
}

// qrPath splits an edge QR path, "/q/{code}" (scan) or "/qr/{code}"
// (image), as the edge routes it after normalising the path.
func qrPath(p string) (route, code string, ok bool) {
	p = path.Clean("/" + p)
	for _, r := range []string{"q", "qr"} {
		if c, found := strings.CutPrefix(p, "/"+r+"/"); found && c != "" && !strings.Contains(c, "/") {
			return r, c, true
		}
	}
	return "", "", false
}

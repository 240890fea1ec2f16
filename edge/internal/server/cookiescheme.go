package server

import (
	"bytes"
	"net/netip"

	"github.com/valyala/fasthttp"

	"kurz/edge/internal/catalog"
)

var strHTTPS = []byte("https")

// cookieSecure reports whether a password cookie for l gets the Secure
// flag: whether the visitor reached the link over https. A browser drops a
// Secure cookie set by an http page, so the flag must follow the scheme
// the link was served on, not KURZ_BASE_URL's: with an https base URL, a
// link on an http:// branded domain could otherwise never be unlocked.
//
// The scheme is that of the connection when the edge terminates TLS, else
// the X-Forwarded-Proto of the proxy in front (believed from
// KURZ_TRUSTED_PROXIES when set, from every peer when not, as the country
// header; "https" in any of its entries counts, so a CDN in front of a
// plain-http load balancer still gets Secure). Without either, the default
// domain is taken to be served as KURZ_BASE_URL says, and a branded
// domain gets no Secure flag: a cookie that works over http beats a link
// that cannot be unlocked, and the cookie is HMAC-bound, HttpOnly and
// scoped to the link's path. A client can only pick the flag of its own
// cookie, so the header needs no stronger proof.
func (s *Server) cookieSecure(ctx *fasthttp.RequestCtx, l *catalog.Link) bool {
	if ctx.IsTLS() {
		return true
	}
	peer, _ := netip.AddrFromSlice(ctx.RemoteIP())
	if !s.resolver.HasTrusted() || s.resolver.Trusted(peer) {
		if lines := ctx.Request.Header.PeekAll(fasthttp.HeaderXForwardedProto); len(lines) > 0 {
			for _, line := range lines {
				for _, proto := range bytes.Split(line, []byte{','}) {
					if bytes.EqualFold(bytes.TrimSpace(proto), strHTTPS) {
						return true
					}
				}
			}
			return false
		}
	}
	return l.Host() == "" && s.secure
}

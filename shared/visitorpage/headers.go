package visitorpage

import "strings"

// Header names and values shared by every page.
const (
	contentTypeHTML = "text/html; charset=utf-8"
	// Referrer policies: destinations may see our origin, never the alias;
	// the password page sends nothing at all.
	referrerDefault  = "strict-origin-when-cross-origin"
	referrerPassword = "no-referrer"
)

// Headers returns the response headers of d's page, Content-Security-Policy
// included: Content-Type, X-Content-Type-Options, Referrer-Policy,
// X-Frame-Options (DENY: none of our pages may be framed), Cache-Control
// (no-store: every page answers one visit and must not be replayed from a
// cache, which would also skip click counting; the stats page must stop
// showing at once when its link turns private) and, for the throttled
// password form and the 503 pages, Retry-After. Set them all; the status is
// d.Status().
//
// The returned slice is shared for pages whose headers do not depend on the
// data: callers must not modify it. The overlay and pixel pages compute
// their CSP per call (colour hash, vendor hosts).
func (p *Pages) Headers(d Data) []Header {
	switch d := d.(type) {
	case *OverlayPage:
		return withCSP(p.headers[kindOverlay], p.csp.overlay(overlayCSS(d)))
	case *PixelPage:
		return withCSP(p.headers[kindPixel], p.csp.pixelPolicy(pixelMask(d)))
	case *UnavailablePage:
		if d.RetryAfter > 0 {
			return withExtra(p.headers[kindMessage], Header{"Retry-After", itoa(d.RetryAfter)})
		}
	case *StatsUnavailablePage:
		if d.RetryAfter > 0 {
			return withExtra(p.headers[kindMessage], Header{"Retry-After", itoa(d.RetryAfter)})
		}
	case *PasswordPage:
		if d.RetryAfter > 0 {
			return withExtra(p.headers[kindPassword], Header{"Retry-After", itoa(d.RetryAfter)})
		}
	case nil:
		return nil
	}
	return p.headers[d.kind()]
}

// staticHeaders builds each kind's headers once. The CSP is always the
// last header, so withCSP can replace it.
func (p *Pages) staticHeaders() [numKinds][]Header {
	var h [numKinds][]Header
	for k := range numKinds {
		ref := referrerDefault
		if k == kindPassword {
			ref = referrerPassword
		}
		h[k] = []Header{
			{"Content-Type", contentTypeHTML},
			{"X-Content-Type-Options", "nosniff"},
			{"Referrer-Policy", ref},
			{"X-Frame-Options", "DENY"},
			{"Cache-Control", "no-store"},
			{"Content-Security-Policy", p.kindCSP(k)},
		}
	}
	return h
}

// kindCSP is the data-independent policy of a kind; for the overlay and
// pixel kinds it is the strictest variant, replaced per call by Headers.
func (p *Pages) kindCSP(k kind) string {
	switch k {
	case kindPassword:
		return p.csp.password()
	case kindFrame:
		return p.csp.framePolicy()
	case kindOverlay:
		return p.csp.overlay(overlayCSS(&OverlayPage{}))
	case kindSplash:
		return p.csp.splashPolicy()
	case kindPixel:
		return p.csp.pixelPolicy(0)
	}
	return p.csp.static()
}

// withCSP copies hs with its last header (the CSP) set to csp.
func withCSP(hs []Header, csp string) []Header {
	out := append([]Header(nil), hs...)
	out[len(out)-1].Value = csp
	return out
}

// withExtra copies hs and appends h.
func withExtra(hs []Header, h Header) []Header {
	out := make([]Header, len(hs), len(hs)+1)
	copy(out, hs)
	return append(out, h)
}

// EmbedHeaders are d's headers for a preview framed by a page of the
// serving origin (the dashboard's forms): the same policy, except that
// framing by the same origin is allowed (frame-ancestors 'self',
// X-Frame-Options SAMEORIGIN) and the page is sandboxed (CSP sandbox
// with scripts only), so it runs in an opaque origin with no access to
// the framing page, cannot navigate it, open windows or submit forms,
// also when opened on its own.
func (p *Pages) EmbedHeaders(d Data) []Header {
	out := append([]Header(nil), p.Headers(d)...)
	for i := range out {
		switch out[i].Name {
		case "X-Frame-Options":
			out[i].Value = "SAMEORIGIN"
		case "Content-Security-Policy":
			out[i].Value = strings.TrimSuffix(out[i].Value, cspTail) + embedTail
		}
	}
	return out
}

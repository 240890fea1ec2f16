package server

import (
	"net/netip"
	"time"

	"github.com/valyala/fasthttp"

	"kurz/edge/internal/catalog"
	"kurz/shared/click"
	"kurz/shared/target"
)

// serveAlias resolves (host, alias) and serves the link.
func (s *Server) serveAlias(ctx *fasthttp.RequestCtx, alias []byte) {
	l, dom, ok := s.resolve(ctx, alias)
	if !ok {
		return
	}
	if l.Missing() {
		s.linkNotFound(ctx, dom)
		return
	}
	s.serveLink(ctx, l, 0)
}

// resolve finds the link (request host, alias): from the cache, else
// loaded. A missing link is a negative entry (l.Missing()); the branded
// domain is nil for the default domain. When the link cannot be loaded it
// answers 503 itself and returns ok false.
func (s *Server) resolve(ctx *fasthttp.RequestCtx, alias []byte) (l *catalog.Link, dom *catalog.Domain, ok bool) {
	dom = s.cat.Domain(ctx.Host())
	host := ""
	if dom != nil {
		host = dom.Host
	}
	if l, ok = s.cat.Link(host, alias); ok {
		return l, dom, true
	}
	l, err := s.cat.LoadLink(loadCtx(), host, string(alias))
	if err != nil {
		s.loadFailed(ctx, err)
		return nil, dom, false
	}
	return l, dom, true
}

// visit is what one request tells about its visitor.
type visit struct {
	hdr     reqHeaders
	peer    netip.Addr // the TCP peer: a proxy when one is in front
	ip      netip.Addr // the client: peer, or X-Forwarded-For from a trusted peer
	country [2]byte
	device  target.Device
	class   click.Class
	social  bool // a link-preview fetcher: gets the Open Graph page
}

// observe fills v from the request: headers, client IP, device and class.
func (s *Server) observe(ctx *fasthttp.RequestCtx, v *visit) {
	v.hdr = s.scanHeaders(&ctx.Request.Header)
	a := s.agents.inspect(ctx.UserAgent())
	v.device, v.social = a.Device, a.SocialPreview
	v.class = target.RequestClass(a.Class, ctx.Method(), v.hdr.purpose)
	v.peer, _ = netip.AddrFromSlice(ctx.RemoteIP())
	v.ip = s.resolver.Resolve(v.peer, v.hdr.xff)
}

// serveLink applies the rules of l in the spec's order: expiry, password,
// social preview, then deep links / geo / device / language (target.Set),
// parameters and visitor query, and finally the redirect type and pixels.
// qrID is set when a QR scan led here (not used yet: QR scans redirect to
// their own target).
func (s *Server) serveLink(ctx *fasthttp.RequestCtx, l *catalog.Link, qrID int64) {
	method := ctx.Method()
	if !isGetOrHead(method) && !(string(method) == fasthttp.MethodPost && l.PasswordHash != "") {
		methodNotAllowed(ctx)
		return
	}
	if l.ExpiredAt(requestTime(ctx).UnixNano()) {
		s.expired(ctx, l)
		return
	}
	if l.PasswordHash != "" {
		if string(method) == fasthttp.MethodPost {
			s.checkPassword(ctx, l)
			return
		}
		if !s.unlocked(ctx, l) {
			s.passwordForm(ctx, l, 0)
			return
		}
	}
	var v visit
	s.observe(ctx, &v)
	if v.social {
		s.push(ctx, l.ID, 0, l.OwnerID, click.KindLink, &v)
		s.preview(ctx, l)
		return
	}
	dest := l.Dest()
	if l.Targets != nil {
		f := target.Facts{Device: v.device, AcceptLanguage: v.hdr.lang}
		if l.Uses&target.UsesCountry != 0 {
			v.country = s.country(&v)
			f.Country = v.country
		}
		if u, ok := l.Targets.Match(&f); ok {
			dest = u
		}
	}
	s.push(ctx, l.ID, qrID, l.OwnerID, click.KindLink, &v)
	typ := l.Type
	if l.FrameRefused() && (typ == catalog.TypeFrame || typ == catalog.TypeOverlay) {
		// The destination refuses frames: a frame or overlay page would
		// show the browser's error page instead of it.
		typ = catalog.TypeDirect
	}
	switch {
	case len(l.Pixels) > 0 && typ == catalog.TypeDirect:
		s.pixelPage(ctx, l, dest)
	case typ == catalog.TypeFrame:
		s.framePage(ctx, l, dest)
	case typ == catalog.TypeSplash:
		s.splashPage(ctx, l, dest)
	case typ == catalog.TypeOverlay:
		s.overlayPage(ctx, l, dest)
	default:
		s.redirect(ctx, dest)
	}
}

func isGetOrHead(m []byte) bool {
	return string(m) == fasthttp.MethodGet || string(m) == fasthttp.MethodHead
}

// clientIP is the TCP peer, or the X-Forwarded-For client when the peer is
// a trusted proxy.
func (s *Server) clientIP(ctx *fasthttp.RequestCtx) netip.Addr {
	peer, _ := netip.AddrFromSlice(ctx.RemoteIP())
	return s.resolver.ResolveLines(peer, ctx.Request.Header.PeekAll(fasthttp.HeaderXForwardedFor))
}

// country is the visitor's ISO code from the country header when it is
// believed (headerCountry), else from GeoIP on the client IP; zero when
// unknown.
func (s *Server) country(v *visit) [2]byte {
	if c := s.headerCountry(v); c != ([2]byte{}) {
		return c
	}
	if s.cfg.CountryOf != nil && v.ip.IsValid() {
		return s.cfg.CountryOf(v.ip)
	}
	return [2]byte{}
}

// headerCountry is the ISO code of the KURZ_COUNTRY_HEADER header, zero
// when it is not configured, absent, not a country, or sent by a peer that
// is not believed. With KURZ_TRUSTED_PROXIES set only those proxies are
// believed (anyone else could pick their own country); without it every
// peer is, for operators behind a CDN that sets only the header (New logs
// a warning). The peer check is a prefix scan: no allocation.
func (s *Server) headerCountry(v *visit) [2]byte {
	h := v.hdr.country
	if len(h) != 2 || (s.countryFromProxies && !s.resolver.Trusted(v.peer)) {
		return [2]byte{}
	}
	if c := [2]byte{upper(h[0]), upper(h[1])}; target.IsCountry(c) {
		return c
	}
	return [2]byte{}
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// push hands one click to the pipeline. The record comes from a pool and
// the pipeline copies it, so nothing escapes and nothing is allocated.
func (s *Server) push(ctx *fasthttp.RequestCtx, linkID, qrID, ownerID int64, kind click.Kind, v *visit) {
	if s.cfg.Push == nil {
		return
	}
	h := s.hits.Get().(*click.Hit)
	h.UnixNano = requestTime(ctx).UnixNano()
	h.LinkID, h.QRID, h.OwnerID = linkID, qrID, ownerID
	h.Kind, h.Class = kind, v.class
	h.IP = v.ip.As16()
	if !v.ip.IsValid() {
		h.IP = [16]byte{}
	}
	h.Country = v.country
	if h.Country == ([2]byte{}) && len(v.hdr.country) > 0 {
		// GeoIP, when needed, runs in the pipeline, off the request path.
		h.Country = s.headerCountry(v)
	}
	h.SetUA(ctx.UserAgent())
	h.SetReferer(ctx.Referer())
	h.SetLang(v.hdr.lang)
	s.cfg.Push(h)
	s.hits.Put(h)
}

// redirect answers 302 to dest plus the visitor's query string.
func (s *Server) redirect(ctx *fasthttp.RequestCtx, dest string) {
	ctx.Response.SetStatusCode(fasthttp.StatusFound)
	h := &ctx.Response.Header
	h.SetCanonical(strCacheControl, strNoStore)
	q := ctx.URI().QueryString()
	if len(q) == 0 {
		h.SetCanonical(strLocation, s2b(dest))
		return
	}
	buf := locationPool.Get()
	buf.B = appendWithQuery(buf.B[:0], dest, q)
	h.SetCanonical(strLocation, buf.B)
	locationPool.Put(buf)
}

// requestTime is when fasthttp started serving the request (set per
// request, no syscall); handler calls outside a server fall back to now.
func requestTime(ctx *fasthttp.RequestCtx) time.Time {
	if t := ctx.Time(); !t.IsZero() {
		return t
	}
	return time.Now()
}

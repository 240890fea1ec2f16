package server

import (
	"errors"

	"github.com/valyala/fasthttp"

	"kurz/edge/internal/catalog"
	"kurz/shared/visitorpage"
)

// page writes d with its status and headers (security headers and CSP
// included). Rendering goes to a pooled buffer first, so a failed render
// becomes a clean 500 instead of half a page.
func (s *Server) page(ctx *fasthttp.RequestCtx, d visitorpage.Data) {
	buf := locationPool.Get()
	defer locationPool.Put(buf)
	buf.Reset()
	if err := s.pages.Render(buf, d); err != nil {
		s.renderFailed(ctx, err)
		return
	}
	writePage(ctx, d.Status(), s.pages.Headers(d), buf.B)
}

// writePage sets a rendered page's status, headers and body (none for HEAD).
func writePage(ctx *fasthttp.RequestCtx, status int, headers []visitorpage.Header, body []byte) {
	ctx.SetStatusCode(status)
	for _, h := range headers {
		ctx.Response.Header.Set(h.Name, h.Value)
	}
	if !ctx.IsHead() {
		ctx.SetBody(body)
	}
}

// renderFailed answers a clean 500 when a page could not be rendered.
func (s *Server) renderFailed(ctx *fasthttp.RequestCtx, err error) {
	s.log.Error("render page", "err", err)
	ctx.Response.Reset()
	ctx.SetStatusCode(fasthttp.StatusInternalServerError)
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetBodyString("internal error\n")
}

// plainRedirect answers 302 to a fixed URL (domain roots and 404s,
// expired links): no visitor query, not cacheable.
func (s *Server) plainRedirect(ctx *fasthttp.RequestCtx, url string) {
	ctx.Response.SetStatusCode(fasthttp.StatusFound)
	ctx.Response.Header.SetCanonical(strCacheControl, strNoStore)
	ctx.Response.Header.SetCanonical(strLocation, s2b(url))
}

func (s *Server) homeURL() string { return s.cfg.BaseURL + "/" }

// linkNotFound: the branded domain's redirect404, else the 404 page.
func (s *Server) linkNotFound(ctx *fasthttp.RequestCtx, dom *catalog.Domain) {
	if dom != nil && dom.Redirect404 != "" {
		s.plainRedirect(ctx, dom.Redirect404)
		return
	}
	s.page(ctx, &visitorpage.NotFoundPage{HomeURL: s.homeURL()})
}

func (s *Server) notFoundRoute(ctx *fasthttp.RequestCtx) {
	s.page(ctx, &visitorpage.NotFoundPage{HomeURL: s.homeURL()})
}

// expired: the domain's redirect404 when set, else 410.
func (s *Server) expired(ctx *fasthttp.RequestCtx, l *catalog.Link) {
	if l.Redirect404 != "" {
		s.plainRedirect(ctx, l.Redirect404)
		return
	}
	s.page(ctx, &visitorpage.GonePage{HomeURL: s.homeURL()})
}

func (s *Server) unavailable(ctx *fasthttp.RequestCtx) {
	s.page(ctx, &visitorpage.UnavailablePage{RetryAfter: 5})
}

// loadFailed answers 503 for a link, campaign or QR code the catalog could
// not load: Retry-After 1 when it shed the load (catalog.ErrBusy: too many
// loads waiting, answered at once), else as unavailable.
func (s *Server) loadFailed(ctx *fasthttp.RequestCtx, err error) {
	if errors.Is(err, catalog.ErrBusy) {
		s.page(ctx, &visitorpage.UnavailablePage{RetryAfter: 1})
		return
	}
	s.unavailable(ctx)
}

func methodNotAllowed(ctx *fasthttp.RequestCtx) {
	ctx.SetStatusCode(fasthttp.StatusMethodNotAllowed)
	ctx.Response.Header.Set("Allow", "GET, HEAD")
	ctx.Response.Header.Set("Cache-Control", "no-store")
}

// root: a branded domain's redirectroot, else the neutral landing page.
func (s *Server) root(ctx *fasthttp.RequestCtx) {
	dom := s.cat.Domain(ctx.Host())
	if dom != nil && dom.RedirectRoot != "" {
		s.plainRedirect(ctx, dom.RedirectRoot)
		return
	}
	host := ""
	if dom != nil {
		host = dom.Host
	}
	s.page(ctx, &visitorpage.LandingPage{Host: host})
}

// shortURL is the public address of l.
func (s *Server) shortURL(ctx *fasthttp.RequestCtx, l *catalog.Link) string {
	if l.Host() == "" {
		return s.cfg.BaseURL + "/" + l.Alias()
	}
	scheme := "http://"
	if s.secure || ctx.IsTLS() {
		scheme = "https://"
	}
	return scheme + l.Host() + "/" + l.Alias()
}

// withVisitorQuery returns dest with the visitor's query merged (see
// appendWithQuery); pages are off the zero-allocation path.
func withVisitorQuery(ctx *fasthttp.RequestCtx, dest string) string {
	q := ctx.URI().QueryString()
	if len(q) == 0 {
		return dest
	}
	return string(appendWithQuery(nil, dest, q))
}

func (s *Server) framePage(ctx *fasthttp.RequestCtx, l *catalog.Link, dest string) {
	s.page(ctx, &visitorpage.FramePage{Title: l.MetaTitle, Destination: withVisitorQuery(ctx, dest)})
}

func (s *Server) splashPage(ctx *fasthttp.RequestCtx, l *catalog.Link, dest string) {
	d := &visitorpage.SplashPage{Destination: withVisitorQuery(ctx, dest), Counter: 5}
	if sp := l.Splash; sp != nil {
		d.Counter, d.Title, d.Message, d.Image, d.Link = sp.Counter, sp.Title, sp.Message, sp.Image, sp.Link
	}
	s.page(ctx, d)
}

func (s *Server) overlayPage(ctx *fasthttp.RequestCtx, l *catalog.Link, dest string) {
	d := &visitorpage.OverlayPage{Title: l.MetaTitle, Destination: withVisitorQuery(ctx, dest)}
	if o := l.Overlay; o != nil {
		d.Message, d.ButtonText, d.ButtonURL = o.Message, o.ButtonText, o.ButtonURL
		d.Background, d.Color, d.Position = o.Background, o.Color, o.Position
	}
	s.page(ctx, d)
}

func (s *Server) pixelPage(ctx *fasthttp.RequestCtx, l *catalog.Link, dest string) {
	px := make([]visitorpage.Pixel, len(l.Pixels))
	for i, p := range l.Pixels {
		px[i] = visitorpage.Pixel{Type: p.Type, Tag: p.Tag}
	}
	s.page(ctx, &visitorpage.PixelPage{Destination: withVisitorQuery(ctx, dest), Pixels: px})
}

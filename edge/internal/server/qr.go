package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"image/color"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
	"golang.org/x/sync/singleflight"

	"kurz/shared/click"
	"kurz/shared/link"
	"kurz/shared/qrcode"
)

// qrEntry is a QR code prepared for rendering, cached by the catalog
// (which drops it when the code changes). Scans never load it: they use
// the catalog's scan entries (catalog.QRScan), which hold no logo. Its
// images are keyed by content, colours and logo, so stale ones are simply
// never asked for again and age out.
type qrEntry struct {
	q      *link.EdgeQR
	fg, bg color.RGBA
	logo   *qrcode.Logo // decoded by the first render
}

func qrCost(e *qrEntry) int64 {
	return int64(len(e.q.Content)+len(e.q.TargetURL)) + e.logo.Cost()
}

// qrCode returns the {code} parameter; a malformed one is answered 404.
func (s *Server) qrCode(ctx *fasthttp.RequestCtx) (string, bool) {
	code, _ := ctx.UserValue("code").(string)
	if !isAlias([]byte(code)) {
		s.notFoundRoute(ctx)
		return "", false
	}
	return code, true
}

// qrFound answers a lookup of a QR code that failed (503) or found nothing
// (404); it reports whether the code was found.
func (s *Server) qrFound(ctx *fasthttp.RequestCtx, found bool, err error) bool {
	switch {
	case err != nil:
		s.loadFailed(ctx, err)
		return false
	case !found:
		s.notFoundRoute(ctx)
		return false
	}
	return true
}

func prepareQR(q *link.EdgeQR) *qrEntry {
	e := &qrEntry{q: q}
	e.fg, _ = qrcode.ParseRGB(q.Foreground) // zero = default colour
	e.bg, _ = qrcode.ParseRGB(q.Background)
	e.logo = qrcode.NewLogo(q.Logo)
	q.Logo = nil // held by e.logo
	return e
}

// qrScan serves /q/{code}: one scan counted, then 302 to the target. It
// loads only the code's target (catalog.QRScan), never its logo.
func (s *Server) qrScan(ctx *fasthttp.RequestCtx) {
	code, ok := s.qrCode(ctx)
	if !ok {
		return
	}
	q, found, err := s.cat.QRScan(code)
	if !s.qrFound(ctx, found, err) {
		return
	}
	if q.Target == "" {
		s.notFoundRoute(ctx)
		return
	}
	var v visit
	s.observe(ctx, &v)
	s.push(ctx, 0, q.ID, q.UserID, click.KindQR, &v)
	s.plainRedirect(ctx, q.Target)
}

// qrImage serves /qr/{code}?format=png|svg&size=100..2000, rendered once
// per (code, content, format, size, colours, logo) and cached.
func (s *Server) qrImage(ctx *fasthttp.RequestCtx) {
	args := ctx.QueryArgs()
	format, err := qrcode.ParseFormat(string(args.Peek("format")))
	if err != nil {
		ctx.SetStatusCode(fasthttp.StatusBadRequest)
		ctx.SetContentType("text/plain; charset=utf-8")
		ctx.SetBodyString("format must be png or svg\n")
		return
	}
	size := qrcode.DefaultSize
	if v := args.Peek("size"); len(v) > 0 {
		n, err := strconv.Atoi(string(v))
		if err != nil || n < qrcode.MinSize || n > qrcode.MaxSize {
			ctx.SetStatusCode(fasthttp.StatusBadRequest)
			ctx.SetContentType("text/plain; charset=utf-8")
			ctx.SetBodyString("size must be an integer from 100 to 2000\n")
			return
		}
		// Snapped to the nearest multiple of 50, as a link's own image: a
		// loop over sizes makes at most 39 renders per format and code.
		size = (n + linkQRStep/2) / linkQRStep * linkQRStep
	}
	code, ok := s.qrCode(ctx)
	if !ok {
		return
	}
	e, found, err := s.qrs.Get(code)
	if !s.qrFound(ctx, found, err) {
		return
	}
	key := e.q.Code + "\x00" + strconv.FormatInt(int64(format), 10) + "\x00" + strconv.Itoa(size) + "\x00" +
		e.q.Foreground + "\x00" + e.q.Background + "\x00" + e.logo.Key() + "\x00" + e.q.Content
	img, err := s.cachedImage(key, func() (*qrImage, error) {
		opt := qrcode.Options{Format: format, Size: size, Foreground: e.fg, Background: e.bg, Logo: e.logo.Image()}
		return renderQR(e.q.Content, opt)
	})
	if err != nil {
		s.renderUnavailable(ctx, e.q.Code, err)
		return
	}
	writeImage(ctx, img)
}

// renderUnavailable answers 503 for an image that could not be rendered
// (renderer busy, or a render error, which is logged).
func (s *Server) renderUnavailable(ctx *fasthttp.RequestCtx, what string, err error) {
	if !errors.Is(err, errRenderBusy) {
		s.log.Warn("render qr", "qr", what, "err", err)
	}
	s.unavailable(ctx)
}

// writeImage answers with a rendered QR image: cacheable by anyone for a
// day (it depends only on its URL), with an ETag for revalidation, and
// sandboxed (an SVG opened directly can run nothing).
func writeImage(ctx *fasthttp.RequestCtx, img *qrImage) {
	h := &ctx.Response.Header
	h.Set("ETag", img.etag)
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	h.SetContentType(img.ctype)
	if match := ctx.Request.Header.Peek("If-None-Match"); len(match) > 0 && string(match) == img.etag {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	ctx.SetStatusCode(fasthttp.StatusOK)
	if !ctx.IsHead() {
		ctx.SetBody(img.body)
	}
}

// renderQR renders content with opt; when the content needs more pixels
// than opt.Size, at the smallest size that works.
func renderQR(content string, opt qrcode.Options) (*qrImage, error) {
	body, err := qrcode.Render(content, opt)
	var se *qrcode.SizeError
	if errors.As(err, &se) && se.Min > opt.Size && se.Min <= qrcode.MaxSize {
		// Too much content for the size asked: the smallest size that works.
		opt.Size = se.Min
		body, err = qrcode.Render(content, opt)
	}
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	return &qrImage{body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, ctype: opt.Format.ContentType()}, nil
}

// renderGate bounds the QR renders running at once (a PNG costs 3-9 ms of
// CPU, and the sizes and links an anonymous client can ask for are many)
// and merges concurrent renders of the same image into one.
type renderGate struct {
	sem   chan struct{}
	group singleflight.Group
}

func newRenderGate(n int) *renderGate { return &renderGate{sem: make(chan struct{}, n)} }

// renderWait is how long a render waits for a free slot before the request
// gets a 503.
const renderWait = 2 * time.Second

var errRenderBusy = errors.New("qr renderer busy")

// cachedImage returns the image cached under key, rendering it on a miss
// through the render gate.
func (s *Server) cachedImage(key string, render func() (*qrImage, error)) (*qrImage, error) {
	if img, ok := s.qrImages.c.Get(key); ok {
		return img, nil
	}
	v, err, _ := s.qrRender.group.Do(key, func() (any, error) {
		t := time.NewTimer(renderWait)
		defer t.Stop()
		select {
		case s.qrRender.sem <- struct{}{}:
		case <-t.C:
			return nil, errRenderBusy
		}
		defer func() { <-s.qrRender.sem }()
		img, err := render()
		if err != nil {
			return nil, err
		}
		s.qrImages.c.Set(key, img, int64(len(img.body)+len(key)+64))
		s.qrImages.c.Wait() // visible to the next request once singleflight lets go
		return img, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*qrImage), nil
}

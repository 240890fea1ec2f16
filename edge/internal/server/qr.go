package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"image"
	"image/color"
	"strconv"

	"github.com/valyala/fasthttp"

	"kurz/shared/click"
	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/qrcode"
)

// qrEntry is a cached QR code, prepared for scans and rendering.
type qrEntry struct {
	q        *pgstore.EdgeQR
	target   string // validated target_url; '' = not a scannable link
	fg, bg   color.RGBA
	logo     image.Image
	logoHash string
}

func qrCost(e *qrEntry) int64 {
	n := int64(len(e.q.Content) + len(e.q.TargetURL) + len(e.q.Logo))
	if e.logo != nil {
		b := e.logo.Bounds()
		n += int64(4 * b.Dx() * b.Dy())
	}
	return n
}

// InvalidateQR drops the cached QR code of code; its images are keyed by
// content, colours and logo, so stale ones are simply never asked for
// again and age out.
func (s *Server) InvalidateQR(code string) { s.qrs.Del("q:" + code) }

// InvalidateQRs drops every cached QR code.
func (s *Server) InvalidateQRs() { s.qrs.Bump() }

func (s *Server) qr(ctx *fasthttp.RequestCtx) (*qrEntry, bool) {
	code, _ := ctx.UserValue("code").(string)
	if !isAlias([]byte(code)) {
		s.notFoundRoute(ctx)
		return nil, false
	}
	e, found, err := s.qrs.get("q:"+code, qrCost, func(c context.Context) (*qrEntry, error) {
		q, err := s.cfg.Store.EdgeQRByCode(c, code)
		if err != nil {
			return nil, err
		}
		return prepareQR(q), nil
	})
	switch {
	case err != nil:
		s.unavailable(ctx)
		return nil, false
	case !found:
		s.notFoundRoute(ctx)
		return nil, false
	}
	return e, true
}

func prepareQR(q *pgstore.EdgeQR) *qrEntry {
	e := &qrEntry{q: q}
	if q.TargetURL != "" {
		if u, err := link.ValidURL(q.TargetURL); err == nil {
			e.target = u
		}
	}
	e.fg, _ = qrcode.ParseRGB(q.Foreground) // zero = default colour
	e.bg, _ = qrcode.ParseRGB(q.Background)
	if len(q.Logo) > 0 {
		if img, err := qrcode.DecodeLogo(q.Logo); err == nil {
			e.logo = img
			sum := sha256.Sum256(q.Logo)
			e.logoHash = hex.EncodeToString(sum[:8])
		}
	}
	return e
}

// qrScan serves /q/{code}: one scan counted, then 302 to the target.
func (s *Server) qrScan(ctx *fasthttp.RequestCtx) {
	e, ok := s.qr(ctx)
	if !ok {
		return
	}
	if e.target == "" {
		s.notFoundRoute(ctx)
		return
	}
	var v visit
	s.observe(ctx, &v)
	s.push(ctx, 0, e.q.ID, e.q.UserID, click.KindQR, &v)
	s.plainRedirect(ctx, e.target)
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
		size = n
	}
	e, ok := s.qr(ctx)
	if !ok {
		return
	}
	key := e.q.Code + "\x00" + strconv.FormatInt(int64(format), 10) + "\x00" + strconv.Itoa(size) + "\x00" +
		e.q.Foreground + "\x00" + e.q.Background + "\x00" + e.logoHash + "\x00" + e.q.Content
	img, ok := s.qrImages.c.Get(key)
	if !ok {
		img, err = renderQR(e, format, size)
		if err != nil {
			s.log.Warn("render qr", "code", e.q.Code, "err", err)
			s.unavailable(ctx)
			return
		}
		s.qrImages.c.Set(key, img, int64(len(img.body)+len(key)+64))
	}
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

func renderQR(e *qrEntry, format qrcode.Format, size int) (*qrImage, error) {
	opt := qrcode.Options{Format: format, Size: size, Foreground: e.fg, Background: e.bg, Logo: e.logo}
	body, err := qrcode.Render(e.q.Content, opt)
	var se *qrcode.SizeError
	if errors.As(err, &se) && se.Min > size && se.Min <= qrcode.MaxSize {
		// Too much content for the size asked: the smallest size that works.
		opt.Size = se.Min
		body, err = qrcode.Render(e.q.Content, opt)
	}
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	return &qrImage{body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, ctype: format.ContentType()}, nil
}

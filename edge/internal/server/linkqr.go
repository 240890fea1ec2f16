package server

import (
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"kurz/shared/qrcode"
	"kurz/shared/visitorpage"
)

// A link's own QR image: {shorturl}/qr, /qr.svg, /qr.png, /qr/{size},
// /qr/{size}.svg, /qr/{size}.png. The code encodes the short URL itself
// (on the branded domain the link lives on, when requested there), so
// scanning it is an ordinary visit of the link, counted then; serving the
// image counts nothing.

// Sizes of a link's QR image, in pixels. Sizes are snapped to a multiple
// of linkQRStep, so one link has at most 19 renders per format however
// many sizes a client asks for (each render is cached).
const (
	linkQRMinSize     = 100
	linkQRMaxSize     = 1000
	linkQRDefaultSize = 300
	linkQRStep        = 50
)

// linkQR serves the QR image of the link named by the alias parameter.
// Unknown alias, bad size → 404 page (the path names no image; a branded
// domain's redirect404 is not used for images); expired link → 410 page,
// as the link itself. Password-protected and private links are served:
// the image shows only the short URL.
func (s *Server) linkQR(ctx *fasthttp.RequestCtx) {
	alias, _ := ctx.UserValue("alias").(string)
	format, size, ok := linkQRParams(string(ctx.Path()), ctx.UserValue("size"))
	if !ok || !isAlias([]byte(alias)) {
		s.notFoundRoute(ctx)
		return
	}
	l, _, ok := s.resolve(ctx, []byte(alias))
	if !ok {
		return
	}
	if l.Missing() {
		s.notFoundRoute(ctx)
		return
	}
	if l.ExpiredAt(requestTime(ctx).UnixNano()) {
		s.page(ctx, &visitorpage.GonePage{HomeURL: s.homeURL()})
		return
	}
	content := s.shortURL(ctx, l)
	key := "link\x00" + strconv.Itoa(int(format)) + "\x00" + strconv.Itoa(size) + "\x00" + content
	img, err := s.cachedImage(key, func() (*qrImage, error) {
		return renderQR(content, qrcode.Options{Format: format, Size: size})
	})
	if err != nil {
		s.renderUnavailable(ctx, content, err)
		return
	}
	writeImage(ctx, img)
}

// linkQRParams reads the format and size of a link QR path: the format
// from the last segment's extension (none or .png = PNG, .svg = SVG), the
// size from the {size} parameter when the route has one.
func linkQRParams(path string, sizeParam any) (qrcode.Format, int, bool) {
	format := qrcode.FormatPNG
	if strings.HasSuffix(path, ".svg") {
		format = qrcode.FormatSVG
	}
	raw, ok := sizeParam.(string)
	if !ok {
		return format, linkQRDefaultSize, true
	}
	if r, svg := strings.CutSuffix(raw, ".svg"); svg {
		raw = r
	} else {
		raw = strings.TrimSuffix(raw, ".png")
	}
	size, ok := snapSize(raw)
	return format, size, ok
}

// snapSize parses a size of linkQRMinSize..linkQRMaxSize decimal digits
// (no sign, no leading zero) and rounds it to the nearest linkQRStep.
func snapSize(raw string) (int, bool) {
	if raw == "" || len(raw) > 4 || raw[0] == '0' {
		return 0, false
	}
	n := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n < linkQRMinSize || n > linkQRMaxSize {
		return 0, false
	}
	return (n + linkQRStep/2) / linkQRStep * linkQRStep, true
}

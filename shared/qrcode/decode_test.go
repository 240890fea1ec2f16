package qrcode

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"image"
	"image/color"
	"image/png"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
	xdraw "golang.org/x/image/draw"
)

// decodeQR reads the QR code in img with gozxing (TRY_HARDER, no charset
// hint, so the encoding guess is the one phone scanners make).
func decodeQR(t *testing.T, img image.Image) string {
	t.Helper()
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatalf("binary bitmap: %v", err)
	}
	hints := map[gozxing.DecodeHintType]interface{}{gozxing.DecodeHintType_TRY_HARDER: true}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, hints)
	if err != nil {
		t.Fatalf("decode QR: %v", err)
	}
	return res.GetText()
}

// decodePNG decodes a rendered PNG and checks it is size×size.
func decodePNG(t *testing.T, b []byte, size int) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("png decode: %v", err)
	}
	if got := img.Bounds(); got.Dx() != size || got.Dy() != size {
		t.Fatalf("png is %dx%d, want %dx%d", got.Dx(), got.Dy(), size, size)
	}
	return img
}

// svgDoc is the subset of our own SVG output the test rasteriser reads.
type svgDoc struct {
	Width   int    `xml:"width,attr"`
	Height  int    `xml:"height,attr"`
	ViewBox string `xml:"viewBox,attr"`
	Rect    struct {
		X      float64 `xml:"x,attr"`
		Y      float64 `xml:"y,attr"`
		Width  float64 `xml:"width,attr"`
		Height float64 `xml:"height,attr"`
		Fill   string  `xml:"fill,attr"`
	} `xml:"rect"`
	Path struct {
		Fill string `xml:"fill,attr"`
		D    string `xml:"d,attr"`
	} `xml:"path"`
	Images []struct {
		X      float64 `xml:"x,attr"`
		Y      float64 `xml:"y,attr"`
		Width  float64 `xml:"width,attr"`
		Height float64 `xml:"height,attr"`
		Href   string  `xml:"http://www.w3.org/1999/xlink href,attr"`
	} `xml:"image"`
}

var runRE = regexp.MustCompile(`M(\d+) (\d+)h(\d+)v1h-(\d+)z`)

// rasterSVG paints the SVG at its own width.
func rasterSVG(t *testing.T, b []byte) image.Image {
	t.Helper()
	return rasterSVGAt(t, b, 0)
}

// rasterSVGAt parses the SVG that renderSVG writes and paints it into a
// px×px RGBA image (px 0: the SVG's width) the way a renderer with
// crispEdges does: background rect, the module runs of the path sampled at
// pixel centres, then the embedded logo. Anything outside that format fails
// the test.
func rasterSVGAt(t *testing.T, b []byte, px int) image.Image {
	t.Helper()
	var doc svgDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("svg is not well-formed XML: %v", err)
	}
	vb := strings.Fields(doc.ViewBox)
	if len(vb) != 4 || vb[0] != vb[1] || vb[2] != vb[3] {
		t.Fatalf("viewBox = %q, want a square", doc.ViewBox)
	}
	origin, _ := strconv.ParseFloat(vb[0], 64)
	side, _ := strconv.ParseFloat(vb[2], 64)
	if doc.Width != doc.Height || doc.Rect.X != origin || doc.Rect.Y != origin || doc.Rect.Width != side || doc.Rect.Height != side {
		t.Fatalf("svg %dx%d, rect %+v: not a square covering viewBox %q", doc.Width, doc.Height, doc.Rect, doc.ViewBox)
	}
	// Module (x, y) is grid[y][x]; the path never goes below 0 and the
	// viewBox bounds the top end.
	n := int(math.Ceil(origin + side))
	grid := make([][]bool, n)
	for i := range grid {
		grid[i] = make([]bool, n)
	}
	var rebuilt strings.Builder
	for _, m := range runRE.FindAllStringSubmatch(doc.Path.D, -1) {
		rebuilt.WriteString(m[0])
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		w, _ := strconv.Atoi(m[3])
		if m[3] != m[4] || x+w > n || y >= n {
			t.Fatalf("run %q outside viewBox %q", m[0], doc.ViewBox)
		}
		for i := x; i < x+w; i++ {
			grid[y][i] = true
		}
	}
	if rebuilt.String() != doc.Path.D {
		t.Fatalf("path data has content outside M x y h w v1 h-w z runs")
	}
	fg, bg := parseHexColor(t, doc.Path.Fill), parseHexColor(t, doc.Rect.Fill)
	if px == 0 {
		px = doc.Width
	}
	img := image.NewRGBA(image.Rect(0, 0, px, px))
	scale := float64(px) / side // pixels per unit
	// unit[p] is the module under the centre of pixel p, -1 in the padding.
	unit := make([]int, px)
	for p := range unit {
		unit[p] = int(math.Floor(origin + (float64(p)+0.5)/scale))
		if unit[p] < 0 || unit[p] >= n {
			unit[p] = -1
		}
	}
	for py := 0; py < px; py++ {
		my := unit[py]
		for pxx := 0; pxx < px; pxx++ {
			c := bg
			if mx := unit[pxx]; my >= 0 && mx >= 0 && grid[my][mx] {
				c = fg
			}
			img.SetRGBA(pxx, py, c)
		}
	}
	for _, im := range doc.Images {
		data, ok := strings.CutPrefix(im.Href, "data:image/png;base64,")
		if !ok {
			t.Fatalf("image href is not a base64 PNG: %.40q", im.Href)
		}
		raw, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			t.Fatalf("image base64: %v", err)
		}
		logo, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("image png: %v", err)
		}
		toPx := func(u float64) int { return int(math.Round((u - origin) * scale)) }
		r := image.Rect(toPx(im.X), toPx(im.Y), toPx(im.X+im.Width), toPx(im.Y+im.Height))
		xdraw.ApproxBiLinear.Scale(img, r, logo, logo.Bounds(), xdraw.Over, nil)
	}
	return img
}

func parseHexColor(t *testing.T, s string) color.RGBA {
	t.Helper()
	c, err := ParseRGB(s)
	if err != nil {
		t.Fatalf("svg colour %q: %v", s, err)
	}
	return c
}

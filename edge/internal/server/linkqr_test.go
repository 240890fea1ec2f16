package server

import (
	"bytes"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
	"github.com/valyala/fasthttp"
)

// decodeQRPNG decodes a PNG QR image and returns its text and width.
func decodeQRPNG(t *testing.T, body []byte) (string, int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("png: %v", err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := qrcode.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_TRY_HARDER: true})
	if err != nil {
		t.Fatalf("decode qr: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != b.Dy() {
		t.Fatalf("image is %dx%d", b.Dx(), b.Dy())
	}
	return res.GetText(), b.Dx()
}

func expectImage(t *testing.T, r *fasthttp.Response, ctype string) {
	t.Helper()
	expect(t, r, 200, "")
	if ct := string(r.Header.ContentType()); ct != ctype {
		t.Fatalf("Content-Type %q, want %q", ct, ctype)
	}
	if cc := string(r.Header.Peek("Cache-Control")); !strings.HasPrefix(cc, "public") {
		t.Fatalf("Cache-Control %q", cc)
	}
	if len(r.Header.Peek("ETag")) == 0 {
		t.Fatal("no ETag")
	}
}

// TestLinkQR: {shorturl}/qr[/size][.svg] encodes the short URL itself, in
// the sizes and formats documented, without counting a click.
func TestLinkQR(t *testing.T) {
	e := newEnv(t)
	e.addLink(linkRow{Alias: "menu1", URL: "https://example.com/menu"})
	e.addLink(linkRow{Alias: "locked", URL: "https://example.com/secret", Password: "pw", Private: true})
	e.addLink(linkRow{Alias: "old", URL: "https://example.com/old", Expires: ptr(time.Now().Add(-time.Hour))})
	e.addDomain("go.brand.test", "", "https://brand.test/missing")
	e.addLink(linkRow{Host: "go.brand.test", Alias: "menu1", URL: "https://brand.test/menu"})

	t.Run("png sizes", func(t *testing.T) {
		tests := []struct {
			path  string
			width int
		}{
			{"/menu1/qr", 300},
			{"/menu1/qr.png", 300},
			{"/menu1/qr/400", 400},
			{"/menu1/qr/400.png", 400},
			{"/menu1/qr/100", 100},
			{"/menu1/qr/1000", 1000},
			{"/menu1/qr/333", 350}, // snapped to the nearest 50
			{"/menu1/qr/124", 100},
			{"/menu1/qr/975", 1000},
		}
		for _, tt := range tests {
			t.Run(tt.path, func(t *testing.T) {
				r := e.do(req{path: tt.path})
				expectImage(t, r, "image/png")
				text, w := decodeQRPNG(t, r.Body())
				if text != testBase+"/menu1" || w != tt.width {
					t.Fatalf("decoded %q at %d px, want %q at %d", text, w, testBase+"/menu1", tt.width)
				}
			})
		}
	})
	t.Run("svg", func(t *testing.T) {
		for path, width := range map[string]string{"/menu1/qr.svg": `width="300"`, "/menu1/qr/500.svg": `width="500"`, "/menu1/qr/512.svg": `width="500"`} {
			r := e.do(req{path: path})
			expectImage(t, r, "image/svg+xml")
			expectBody(t, r, "<svg", width, "<path")
		}
	})
	t.Run("branded domain", func(t *testing.T) {
		r := e.do(req{host: "Go.Brand.test", path: "/menu1/qr"})
		expectImage(t, r, "image/png")
		if text, _ := decodeQRPNG(t, r.Body()); text != "http://go.brand.test/menu1" {
			t.Fatalf("decoded %q", text)
		}
		// An alias that exists only on the default domain is unknown here,
		// and an image is never redirected to the domain's redirect404.
		e.addLink(linkRow{Alias: "only-default", URL: "https://example.com/"})
		expect(t, e.do(req{host: "go.brand.test", path: "/only-default/qr"}), 404, "")
	})
	t.Run("password and private links are served", func(t *testing.T) {
		r := e.do(req{path: "/locked/qr"})
		expectImage(t, r, "image/png")
		if text, _ := decodeQRPNG(t, r.Body()); text != testBase+"/locked" {
			t.Fatalf("decoded %q", text)
		}
		if strings.Contains(string(r.Body()), "secret") {
			t.Fatal("image leaks the destination")
		}
	})
	t.Run("refused", func(t *testing.T) {
		for path, status := range map[string]int{
			"/nope/qr": 404, "/nope/qr.svg": 404, "/nope/qr/300": 404,
			"/menu1/qr/99": 404, "/menu1/qr/1001": 404, "/menu1/qr/abc": 404, "/menu1/qr/0300": 404,
			"/menu1/qr/-300": 404, "/menu1/qr/300.gif": 404, "/menu1/qr/300.svg.svg": 404, "/menu1/qr/300.png.svg": 404, "/menu1/qr/300.svg.png": 404, "/menu1/qr/": 404,
			"/menu1/qr.gif": 404, "/menu1/qr/300/x": 404,
			"/old/qr": 410, "/old/qr/200.svg": 410,
		} {
			r := e.do(req{path: path})
			expect(t, r, status, "")
			if ct := string(r.Header.ContentType()); !strings.HasPrefix(ct, "text/html") {
				t.Errorf("%s: Content-Type %q, want the HTML page", path, ct)
			}
		}
		expect(t, e.do(req{method: "POST", path: "/menu1/qr"}), 404, "")
	})
	t.Run("head, etag", func(t *testing.T) {
		r := e.do(req{method: "HEAD", path: "/menu1/qr/200"})
		expect(t, r, 200, "")
		if len(r.Body()) != 0 || string(r.Header.ContentType()) != "image/png" {
			t.Fatalf("HEAD: %d body bytes, Content-Type %q", len(r.Body()), r.Header.ContentType())
		}
		etag := string(e.do(req{path: "/menu1/qr/200"}).Header.Peek("ETag"))
		expect(t, e.do(req{path: "/menu1/qr/200", headers: map[string]string{"If-None-Match": etag}}), 304, "")
		if other := string(e.do(req{path: "/menu1/qr/250"}).Header.Peek("ETag")); other == etag {
			t.Fatal("two sizes share an ETag")
		}
	})
	if n := len(e.rec.all()); n != 0 {
		t.Fatalf("%d clicks counted for QR images", n)
	}
}

func TestSnapSize(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"100", 100, true}, {"124", 100, true}, {"125", 150, true}, {"300", 300, true},
		{"1000", 1000, true}, {"99", 0, false}, {"1001", 0, false}, {"", 0, false},
		{"0100", 0, false}, {"+300", 0, false}, {"3e2", 0, false}, {"99999999999999999999", 0, false},
	}
	for _, tt := range tests {
		if got, ok := snapSize(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("snapSize(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestLinkQRRenderGate: renders wait for one of a few slots; a request
// that cannot get one in time is a 503, while cached images are still
// served.
func TestLinkQRRenderGate(t *testing.T) {
	e := newEnv(t)
	e.addLink(linkRow{Alias: "menu1", URL: "https://example.com/menu"})
	expectImage(t, e.do(req{path: "/menu1/qr/200"}), "image/png")
	for range cap(e.srv.qrRender.sem) {
		e.srv.qrRender.sem <- struct{}{}
	}
	start := time.Now()
	r := e.do(req{path: "/menu1/qr/600"})
	expect(t, r, 503, "")
	if d := time.Since(start); d < renderWait || d > renderWait+time.Second {
		t.Fatalf("busy answer after %v, want about %v", d, renderWait)
	}
	expectImage(t, e.do(req{path: "/menu1/qr/200"}), "image/png") // cached: no slot needed
	for range cap(e.srv.qrRender.sem) {
		<-e.srv.qrRender.sem
	}
	expectImage(t, e.do(req{path: "/menu1/qr/600"}), "image/png")
}

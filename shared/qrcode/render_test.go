package qrcode

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func loadLogo(t *testing.T, name string) image.Image {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	img, err := DecodeLogo(b)
	if err != nil {
		t.Fatalf("DecodeLogo(%s): %v", name, err)
	}
	return img
}

// renderCases are shared by the PNG and SVG round-trip tests.
func renderCases(t *testing.T) []struct {
	name, content string
	opt           Options
} {
	t.Helper()
	logoPNG, logoJPG := loadLogo(t, "logo.png"), loadLogo(t, "logo.jpg")
	vcard, err := BuildContent(TypeVCard, []byte(`{"name":"Jane Doe","org":"Acme, Inc","phone":"+49 30 1234","email":"jane@acme.example","note":"Grüße"}`))
	if err != nil {
		t.Fatal(err)
	}
	wifi, err := BuildContent(TypeWiFi, []byte(`{"ssid":"Café;Guest","password":"se:cr,et\\pw","hidden":true}`))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("kurz link shortener 0123456789 ", 33) // 1023 bytes, version 28+
	return []struct {
		name, content string
		opt           Options
	}{
		{"url min size", "https://kurz.example/q/Ab3dE", Options{Size: 100}},
		{"url default", "https://kurz.example/q/Ab3dE", Options{Size: DefaultSize}},
		{"url max size", "https://kurz.example/q/Ab3dE", Options{Size: MaxSize}},
		{"odd size", "https://kurz.example/q/Ab3dE", Options{Size: 457}},
		{"vcard", vcard.Text, Options{Size: 400}},
		{"wifi", wifi.Text, Options{Size: 300}},
		{"unicode", "Grüße aus Köln — 😀 日本語", Options{Size: 300}},
		{"long text", long, Options{Size: 800}},
		{"colours navy on yellow", "tel:+4930123", Options{Size: 300, Foreground: rgb(0, 0, 128), Background: rgb(255, 255, 0)}},
		{"colours mid grey", "tel:+4930123", Options{Size: 1000, Foreground: rgb(0x72, 0x72, 0x72)}},
		{"logo png", "https://kurz.example/q/Ab3dE", Options{Size: 300, Logo: logoPNG}},
		{"logo png large", "https://kurz.example/q/Ab3dE", Options{Size: 1000, Logo: logoPNG}},
		{"logo jpeg coloured", "mailto:jane@example.com", Options{Size: 500, Logo: logoJPG, Foreground: rgb(80, 0, 0)}},
		{"logo long", long[:600], Options{Size: 600, Logo: logoPNG}},
	}
}

func TestRenderPNGDecodes(t *testing.T) {
	for _, tt := range renderCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			opt := tt.opt
			opt.Format = FormatPNG
			b, err := Render(tt.content, opt)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			img := decodePNG(t, b, opt.Size)
			if got := decodeQR(t, img); got != tt.content {
				t.Errorf("decoded %q, want %q", got, tt.content)
			}
			assertColours(t, img, withDefaults(opt))
		})
	}
}

func TestRenderSVGDecodes(t *testing.T) {
	for _, tt := range renderCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			opt := tt.opt
			opt.Format = FormatSVG
			b, err := Render(tt.content, opt)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			img := rasterSVG(t, b)
			if img.Bounds().Dx() != opt.Size {
				t.Fatalf("svg width %d, want %d", img.Bounds().Dx(), opt.Size)
			}
			if got := decodeQR(t, img); got != tt.content {
				t.Errorf("decoded %q, want %q", got, tt.content)
			}
			assertColours(t, img, withDefaults(opt))
		})
	}
}

// assertColours checks the corners are background, that a code without a
// logo has exactly the two colours (crisp modules, no resampling), and that a
// logo really was drawn (the writer skips oversized logos silently).
func assertColours(t *testing.T, img image.Image, opt Options) {
	t.Helper()
	b := img.Bounds()
	if got := rgbaAt(img, b.Min.X, b.Min.Y); got != opt.Background {
		t.Errorf("corner %v, want background %v", got, opt.Background)
	}
	seen := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			seen[rgbaAt(img, x, y)]++
		}
	}
	if seen[opt.Foreground] == 0 {
		t.Errorf("no foreground pixels %v", opt.Foreground)
	}
	if opt.Logo == nil {
		if len(seen) != 2 {
			t.Errorf("image has %d colours, want exactly 2 (fg, bg)", len(seen))
		}
		return
	}
	if len(seen) < 10 {
		t.Errorf("image has %d colours: the logo was not drawn", len(seen))
	}
	// The plate must stay within 1/5 of the width around the centre.
	c := b.Dx() / 2
	if got := rgbaAt(img, c, c); got == opt.Foreground {
		t.Errorf("centre pixel is foreground: the logo was not drawn")
	}
}

func rgbaAt(img image.Image, x, y int) color.RGBA {
	r, g, b, a := img.At(x, y).RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

func TestRenderPNGModulesAreCrisp(t *testing.T) {
	// Every module must be a solid block of the same pixel width: sample each
	// pixel row of the first finder pattern and check run lengths are equal.
	b, err := Render("https://kurz.example/q/x", Options{Size: 333})
	if err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, b, 333)
	code, _ := encode("https://kurz.example/q/x", false)
	block := 333 / (code.Dimension() + 2*quietZone)
	left := (333 - block*code.Dimension()) / 2
	// The finder's top row is 7 dark modules: one run of exactly 7*block px.
	y := left + block/2
	run := 0
	for x := left; x < 333 && rgbaAt(img, x, y) == DefaultForeground; x++ {
		run++
	}
	if run != 7*block {
		t.Errorf("finder top row run = %d px, want %d (7 modules of %d px)", run, 7*block, block)
	}
	if rgbaAt(img, left-1, y) != DefaultBackground {
		t.Errorf("pixel left of the finder is not background")
	}
}

func TestRenderSizeErrors(t *testing.T) {
	long := strings.Repeat("a", maxBytesNoLogo) // version 40: 177 modules
	_, err := Render(long, Options{Size: 150})
	var se *SizeError
	if !errors.As(err, &se) || !errors.Is(err, ErrSizeTooSmall) || se.Min != 185 || se.Size != 150 {
		t.Fatalf("Render(2331 bytes, 150px) error = %v, want *SizeError{Min:185}", err)
	}
	minSize, err := MinPNGSize(long, false)
	if err != nil || minSize != 185 {
		t.Fatalf("MinPNGSize = %d, %v; want 185", minSize, err)
	}
	b, err := Render(long, Options{Size: minSize})
	if err != nil {
		t.Fatalf("Render at MinPNGSize: %v", err)
	}
	decodePNG(t, b, minSize)
	// SVG is vector: no size limit applies.
	if _, err := Render(long, Options{Size: 100, Format: FormatSVG}); err != nil {
		t.Errorf("Render SVG 100px: %v", err)
	}
}

func TestRenderClampsSize(t *testing.T) {
	for _, tt := range []struct{ in, want int }{{0, MinSize}, {-5, MinSize}, {99, MinSize}, {2001, MaxSize}, {1 << 30, MaxSize}} {
		if got := withDefaults(Options{Size: tt.in}).Size; got != tt.want {
			t.Errorf("size %d clamped to %d, want %d", tt.in, got, tt.want)
		}
	}
	// One real render proves Render applies the clamp (MaxSize is rendered in
	// the decode tests).
	b, err := Render("x", Options{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	decodePNG(t, b, MinSize)
}

func TestRenderRejects(t *testing.T) {
	if _, err := Render("", Options{}); err == nil {
		t.Error("Render(\"\") succeeded")
	}
	_, err := Render("x", Options{Foreground: rgb(0xbb, 0xbb, 0xbb)})
	assertValidation(t, err, "foreground", "at least 3:1")
	_, err = Render(strings.Repeat("a", maxBytesLogo+1), Options{Logo: image.NewRGBA(image.Rect(0, 0, 8, 8))})
	assertValidation(t, err, "logo", "too long for a QR code with a logo")
	_, err = Render("x", Options{Format: Format(7)})
	if err == nil {
		t.Error("unknown format accepted")
	}
}

// TestCheckFitMatchesEncoder keeps the capacity constants honest against
// the encoder: the limit fits, one byte more does not.
func TestCheckFitMatchesEncoder(t *testing.T) {
	for _, tt := range []struct {
		logo  bool
		limit int
	}{{false, maxBytesNoLogo}, {true, maxBytesLogo}} {
		ok := strings.Repeat("é", tt.limit/2) + strings.Repeat("a", tt.limit%2)
		if err := CheckFit(ok, tt.logo); err != nil {
			t.Errorf("CheckFit(%d bytes, logo=%v) = %v", len(ok), tt.logo, err)
		}
		if _, err := encode(ok, tt.logo); err != nil {
			t.Errorf("encode(%d bytes, logo=%v) = %v", len(ok), tt.logo, err)
		}
		over := ok + "a"
		if CheckFit(over, tt.logo) == nil {
			t.Errorf("CheckFit(%d bytes, logo=%v) accepted", len(over), tt.logo)
		}
		if _, err := encode(over, tt.logo); err == nil {
			t.Errorf("encode(%d bytes, logo=%v) succeeded: constant too low", len(over), tt.logo)
		}
	}
}

func TestSVGCarriesNoText(t *testing.T) {
	content := `</svg><script>alert("x")</script>`
	b, err := Render(content, Options{Format: FormatSVG, Size: 300, Logo: loadLogo(t, "logo.png")})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"script", "alert", "&lt;"} {
		if bytes.Contains(b, []byte(bad)) {
			t.Errorf("svg contains %q", bad)
		}
	}
	if got := decodeQR(t, rasterSVG(t, b)); got != content {
		t.Errorf("decoded %q", got)
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"": FormatPNG, "png": FormatPNG, "PNG": FormatPNG, "svg": FormatSVG, "Svg": FormatSVG} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %v, %v", in, got, err)
		}
	}
	_, err := ParseFormat("gif")
	assertValidation(t, err, "format", "png or svg")
	if FormatSVG.ContentType() != "image/svg+xml" || FormatPNG.ContentType() != "image/png" {
		t.Error("ContentType mismatch")
	}
}

// TestSVGMatchesPNG checks the SVG at its nominal size paints exactly the
// PNG's pixels (no logo: the logo is resampled differently by each), and
// that the vector still decodes when a renderer scales it. (gozxing cannot
// read version 38+ codes at fractional module widths from any writer, so the
// scaled check stays below that.)
func TestSVGMatchesPNG(t *testing.T) {
	for _, tt := range []struct {
		content    string
		size       int
		fractional bool // too small for whole pixels per module
	}{
		{"https://kurz.example/q/Ab3dE", 333, false},
		{strings.Repeat("x", 500), 640, false},
		{strings.Repeat("y", 800), 100, true},
	} {
		svg, err := Render(tt.content, Options{Format: FormatSVG, Size: tt.size})
		if err != nil {
			t.Fatal(err)
		}
		raster := rasterSVG(t, svg)
		pngBytes, err := Render(tt.content, Options{Size: tt.size})
		if tt.fractional {
			if !errors.Is(err, ErrSizeTooSmall) {
				t.Fatalf("png at %d px: error %v, want ErrSizeTooSmall", tt.size, err)
			}
		} else {
			if err != nil {
				t.Fatal(err)
			}
			pngImg := decodePNG(t, pngBytes, tt.size)
			for y := 0; y < tt.size; y++ {
				for x := 0; x < tt.size; x++ {
					if rgbaAt(raster, x, y) != rgbaAt(pngImg, x, y) {
						t.Fatalf("size %d: svg and png differ at (%d,%d)", tt.size, x, y)
					}
				}
			}
		}
		// A renderer scaling the vector (CSS, print) to a non-integral
		// module width still gives a code.
		if got := decodeQR(t, rasterSVGAt(t, svg, 1000)); got != tt.content {
			t.Errorf("scaled svg decoded %q", got)
		}
	}
}

// TestRenderConcurrent lets the race detector check that concurrent renders
// (the edge serves many /qr/{code} requests at once) share no state, not even
// a logo image.
func TestRenderConcurrent(t *testing.T) {
	logo := loadLogo(t, "logo.png")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			content := "https://kurz.example/q/c" + strconv.Itoa(i)
			opt := Options{Size: 150 + 10*i, Logo: logo, Format: Format(i % 2)}
			b, err := Render(content, opt)
			if err == nil && len(b) == 0 {
				err = errors.New("empty output")
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

package qrcode

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
)

// patternLogo is a w×h logo that compresses well: a transparent field with
// an opaque coloured disc and diagonal bands (none in the corners).
func patternLogo(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := min(w, h) / 2
	for y := range h {
		for x := range w {
			dx, dy := x-w/2, y-h/2
			switch {
			case dx*dx+dy*dy < r*r*2/3:
				img.SetNRGBA(x, y, color.NRGBA{200, 30, 40, 255})
			case (x+y)%(w/4+1) >= w/8 && (x+y)%(w/4+1) < w/8+w/16:
				img.SetNRGBA(x, y, color.NRGBA{20, 60, 160, 255})
			}
		}
	}
	return img
}

// noiseLogo is a w×h logo of random pixels, opaque or of random alpha: it
// does not compress.
func noiseLogo(w, h int, opaque bool) *image.NRGBA {
	rng := rand.New(rand.NewPCG(1, 2))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(rng.Uint32())
	}
	for i := 3; opaque && i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	return img
}

func pngOf(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegOf(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestPrepareLogo(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		w, h int
	}{
		{"1500x1500 png scaled", pngOf(t, patternLogo(1500, 1500)), LogoSide, LogoSide},
		{"wide jpeg scaled", jpegOf(t, patternLogo(1500, 600)), LogoSide, 160},
		{"tall png scaled", pngOf(t, patternLogo(600, 1500)), 160, LogoSide},
		{"largest accepted", pngOf(t, patternLogo(MaxLogoDimension, MaxLogoDimension)), LogoSide, LogoSide},
		{"exactly LogoSide kept", pngOf(t, patternLogo(LogoSide, LogoSide)), LogoSide, LogoSide},
		{"small png never upscaled", readFixture(t, "logo.png"), 160, 96},
		{"small jpeg to png", readFixture(t, "logo.jpg"), 64, 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored, err := PrepareLogo(tt.in)
			if err != nil {
				t.Fatalf("PrepareLogo: %v", err)
			}
			if !bytes.HasPrefix(stored, pngMagic) {
				t.Fatalf("stored logo is not a PNG: % x", stored[:8])
			}
			if len(stored) > MaxStoredLogoBytes {
				t.Errorf("stored %d bytes, more than %d", len(stored), MaxStoredLogoBytes)
			}
			img, err := png.Decode(bytes.NewReader(stored))
			if err != nil {
				t.Fatalf("stored logo does not decode: %v", err)
			}
			if b := img.Bounds(); b.Dx() != tt.w || b.Dy() != tt.h {
				t.Errorf("stored %dx%d, want %dx%d", b.Dx(), b.Dy(), tt.w, tt.h)
			}
			again, err := PrepareLogo(tt.in)
			if err != nil || !bytes.Equal(again, stored) {
				t.Errorf("PrepareLogo is not deterministic (err %v)", err)
			}
		})
	}
}

// TestPrepareLogoKeepsTransparency: a transparent corner stays transparent
// and the opaque disc keeps its colour after scaling.
func TestPrepareLogoKeepsTransparency(t *testing.T) {
	stored, err := PrepareLogo(pngOf(t, patternLogo(1200, 1200)))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(stored))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, a := img.At(1, 1).RGBA(); a != 0 {
		t.Errorf("corner alpha %d, want 0", a)
	}
	c := color.NRGBAModel.Convert(img.At(LogoSide/2, LogoSide/2)).(color.NRGBA)
	if c != (color.NRGBA{200, 30, 40, 255}) {
		t.Errorf("centre %v, want the disc colour", c)
	}
}

func TestPrepareLogoErrors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		rule string
	}{
		{"header claims 20000x20000", pngHeader(20000, 20000), "must be at most 2048×2048 pixels"},
		{"one pixel too tall", pngOf(t, image.NewGray(image.Rect(0, 0, 1, MaxLogoDimension+1))), "must be at most 2048×2048 pixels"},
		{"gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), "must be a PNG or JPEG"},
		{"truncated", readFixture(t, "logo.png")[:60], "not a valid"},
		// 400×400 random RGBA pixels: about 625 KiB as a PNG, under the
		// 1 MiB input cap, over the stored cap.
		{"too detailed", pngOf(t, noiseLogo(LogoSide, LogoSide, false)), "too detailed: 625 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.in) > MaxLogoBytes {
				t.Fatalf("fixture is %d bytes, over the input cap", len(tt.in))
			}
			stored, err := PrepareLogo(tt.in)
			if stored != nil {
				t.Errorf("got %d stored bytes", len(stored))
			}
			assertValidation(t, err, "logo", tt.rule)
		})
	}
}

// TestPrepareLogoBombAllocatesLittle: a header claiming 20000×20000 is
// refused from the header, before any pixel buffer exists (1.6 GB RGBA).
func TestPrepareLogoBombAllocatesLittle(t *testing.T) {
	bomb := pngHeader(20000, 20000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		_, _ = PrepareLogo(bomb)
	}
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Errorf("10 bomb prepares allocated %d bytes", d)
	}
}

// TestLoadLogo: stored logos load at 8-bit within LogoSide², including the
// larger PNG and JPEG logos stored before PrepareLogo existed.
func TestLoadLogo(t *testing.T) {
	prepared, err := PrepareLogo(pngOf(t, patternLogo(900, 900)))
	if err != nil {
		t.Fatal(err)
	}
	deep := image.NewRGBA64(image.Rect(0, 0, 300, 200))
	tests := []struct {
		name   string
		stored []byte
		w, h   int
	}{
		{"prepared", prepared, LogoSide, LogoSide},
		{"legacy png 2048x1024", pngOf(t, patternLogo(2048, 1024)), LogoSide, 200},
		{"legacy jpeg", jpegOf(t, patternLogo(1000, 1000)), LogoSide, LogoSide},
		{"legacy 16-bit png", pngOf(t, deep), 300, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, err := LoadLogo(tt.stored)
			if err != nil {
				t.Fatalf("LoadLogo: %v", err)
			}
			if b := img.Bounds(); b.Dx() != tt.w || b.Dy() != tt.h {
				t.Errorf("loaded %dx%d, want %dx%d", b.Dx(), b.Dy(), tt.w, tt.h)
			}
			switch img.(type) {
			case *image.NRGBA, *image.RGBA:
			default:
				t.Errorf("loaded as %T, want 8-bit RGBA", img)
			}
		})
	}
}

func TestLogoDecodesOnceOnFirstImage(t *testing.T) {
	if l := NewLogo(nil); l != nil || l.Key() != "" || l.Image() != nil || l.Cost() != 0 {
		t.Fatalf("NewLogo(nil) = %v: want a nil Logo that is no logo", l)
	}
	stored, err := PrepareLogo(pngOf(t, patternLogo(1500, 1500)))
	if err != nil {
		t.Fatal(err)
	}
	l := NewLogo(stored)
	if l.img != nil {
		t.Fatal("NewLogo decoded the logo; only a render may")
	}
	if c := l.Cost(); c > MaxLogoCost || c < int64(len(stored)) {
		t.Errorf("Cost = %d, want %d..%d", c, len(stored), MaxLogoCost)
	}
	if l.Key() == "" || l.Key() != NewLogo(bytes.Clone(stored)).Key() || l.Key() == NewLogo(stored[1:]).Key() {
		t.Errorf("Key %q must identify the bytes", l.Key())
	}
	imgs := make([]image.Image, 8)
	var wg sync.WaitGroup
	for i := range imgs {
		wg.Go(func() { imgs[i] = l.Image() })
	}
	wg.Wait()
	for i, img := range imgs {
		if img == nil || img != imgs[0] {
			t.Fatalf("Image() #%d = %p, want one decoded image for all", i, img)
		}
	}
	if b := imgs[0].Bounds(); b.Dx() != LogoSide || b.Dy() != LogoSide {
		t.Errorf("decoded %v", b)
	}
	if img := NewLogo([]byte("not an image")).Image(); img != nil {
		t.Errorf("undecodable bytes gave an image; want no logo")
	}
}

// TestRenderPreparedLogoScans renders codes with a logo in its stored form,
// held as a Logo, and reads them back as a phone would.
func TestRenderPreparedLogoScans(t *testing.T) {
	const content = "https://kurz.example/q/Ab3dE9xZ"
	for _, src := range []struct {
		name string
		in   []byte
	}{
		{"png 1500", pngOf(t, patternLogo(1500, 1500))},
		{"jpeg photo-like", jpegOf(t, noiseLogo(700, 500, true))},
	} {
		stored, err := PrepareLogo(src.in)
		if err != nil {
			t.Fatalf("%s: PrepareLogo: %v", src.name, err)
		}
		logo := NewLogo(stored)
		for _, opt := range []Options{
			{Size: 300},
			{Size: MaxSize, Foreground: color.RGBA{0, 0, 80, 255}},
			{Size: 600, Format: FormatSVG},
		} {
			opt.Logo = logo.Image()
			b, err := Render(content, opt)
			if err != nil {
				t.Fatalf("%s %+v: Render: %v", src.name, opt.Size, err)
			}
			var img image.Image
			if opt.Format == FormatSVG {
				img = rasterSVG(t, b)
			} else {
				img = decodePNG(t, b, opt.Size)
			}
			if got := decodeQR(t, img); got != content {
				t.Errorf("%s size %d format %d: scanned %q, want %q", src.name, opt.Size, opt.Format, got, content)
			}
		}
	}
}

// TestPrepareLogoMemory: the estimate read from the header covers what
// PrepareLogo allocates (garbage collection off, so every byte counts) and
// is small for what the header refuses.
func TestPrepareLogoMemory(t *testing.T) {
	if m := MaxPrepareLogoMemory; m < 90<<20 || m > 110<<20 {
		t.Errorf("MaxPrepareLogoMemory = %d MiB, want about 100", m>>20)
	}
	if m := PrepareLogoMemory(pngHeader(20000, 20000)); m > 64<<10 {
		t.Errorf("a refused header reserves %d bytes", m)
	}
	for _, tt := range []struct {
		name string
		in   []byte
	}{
		{"png 2048", pngOf(t, patternLogo(MaxLogoDimension, MaxLogoDimension))},
		{"jpeg 2048", jpegOf(t, patternLogo(MaxLogoDimension, MaxLogoDimension))},
		{"png 1500x300", pngOf(t, patternLogo(1500, 300))},
		{"small png", readFixture(t, "logo.png")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := PrepareLogoMemory(tt.in)
			if want > MaxPrepareLogoMemory {
				t.Errorf("estimate %d over the maximum %d", want, MaxPrepareLogoMemory)
			}
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, err := PrepareLogo(tt.in); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			t.Logf("allocated %d KiB, estimate %d KiB", (after.TotalAlloc-before.TotalAlloc)>>10, want>>10)
			if got := int64(after.TotalAlloc - before.TotalAlloc); got > want {
				t.Errorf("PrepareLogo allocated %d KiB, estimate %d KiB", got>>10, want>>10)
			}
		})
	}
}

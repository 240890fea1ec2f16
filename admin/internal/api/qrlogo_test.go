package api

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"net/http"
	"testing"

	"kurz/shared/qrcode"
)

// Logos are decoded once, at write time, and stored pre-scaled: these tests
// pin the stored form and the write-time refusals.

// storedLogo is the stored form of a sent logo.
func storedLogo(t *testing.T, sent []byte) []byte {
	t.Helper()
	b, err := qrcode.PrepareLogo(sent)
	if err != nil {
		t.Fatalf("PrepareLogo: %v", err)
	}
	return b
}

// logoPattern is a w×h logo that compresses well (a disc on transparency),
// so even 1500×1500 stays far under the 1 MiB input cap.
func logoPattern(w, h int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := min(w, h) / 3
	for y := range h {
		for x := range w {
			if dx, dy := x-w/2, y-h/2; dx*dx+dy*dy < r*r {
				img.SetNRGBA(x, y, color.NRGBA{0, 90, 170, 255})
			}
		}
	}
	return img
}

// logoNoise is a w×h logo of random pixels and alpha: it does not compress.
func logoNoise(w, h int) image.Image {
	rng := rand.New(rand.NewPCG(7, 8))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(rng.Uint32())
	}
	return img
}

func encodeLogo(t *testing.T, img image.Image, asJPEG bool) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	if asJPEG {
		err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 90})
	} else {
		err = png.Encode(&b, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() > qrcode.MaxLogoBytes {
		t.Fatalf("logo fixture is %d bytes, over the 1 MiB input cap", b.Len())
	}
	return b.Bytes()
}

// TestQRLogoStoredScaled: a large logo is stored as a PNG scaled to fit
// 400×400 (aspect ratio kept), on add and on update, and the code rendered
// from the stored row still scans.
func TestQRLogoStoredScaled(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	square := encodeLogo(t, logoPattern(1500, 1500), false)
	wide := encodeLogo(t, logoPattern(1600, 800), true)

	check := func(t *testing.T, q qrStoredRow, w, h int) {
		t.Helper()
		img, err := png.Decode(bytes.NewReader(q.logo))
		if err != nil {
			t.Fatalf("stored logo (%d bytes) is not a PNG: %v", len(q.logo), err)
		}
		if b := img.Bounds(); b.Dx() != w || b.Dy() != h || b.Dx() > 512 || b.Dy() > 512 {
			t.Errorf("stored logo is %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
		}
		if len(q.logo) > qrcode.MaxStoredLogoBytes {
			t.Errorf("stored logo is %d bytes, over %d", len(q.logo), qrcode.MaxStoredLogoBytes)
		}
		want := q.content
		if got := scanStoredQR(t, q); got != want {
			t.Errorf("scanned %q, want %q", got, want)
		}
	}

	id, _ := e.addQRCode(t, key, map[string]any{"type": "link", "data": "https://example.com/",
		"logo": qrDataURI("image/png", square)})
	check(t, e.qrStored(t, id), qrcode.LogoSide, qrcode.LogoSide)

	r := e.do("PUT", fmt.Sprintf("/api/qr/%d/update", id), key, map[string]any{"logo": qrDataURI("image/jpeg", wide)})
	r.wantStatus(t, http.StatusOK)
	check(t, e.qrStored(t, id), qrcode.LogoSide, qrcode.LogoSide/2)
}

// TestQRLogoRefusedAtWrite: a header claiming 20000×20000 is refused from
// the header (a decode would fail differently: the file holds 64 KiB of
// pixel data), and a logo whose stored form would exceed the stored cap is
// refused; both 400 naming logo, nothing written, on add and on update.
func TestQRLogoRefusedAtWrite(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	bomb := qrFixture(t, "qr_logo_bomb.png")
	// 400×400 random RGBA: about 625 KiB as a PNG, under the 1 MiB input
	// cap, over the 512 KiB stored cap.
	noise := encodeLogo(t, logoNoise(400, 400), false)

	id, _ := e.addQRCode(t, key, map[string]any{"type": "text", "data": "kept",
		"logo": qrDataURI("image/png", qrFixture(t, "qr_logo.png"))})
	before := e.qrStored(t, id)
	for _, tt := range []struct {
		name string
		logo []byte
		want string
	}{
		{"header claims 20000x20000", bomb, "logo: must be at most 2048×2048 pixels"},
		{"stored form too large", noise, "logo: too detailed: 625 KiB as a PNG of at most 400×400 pixels, at most 512 KiB; use a simpler image"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := map[string]any{"type": "text", "data": "x", "logo": qrDataURI("image/png", tt.logo)}
			e.do("POST", "/api/qr/add", key, body).wantStatus(t, http.StatusBadRequest).wantMessage(t, tt.want)
			e.do("PUT", fmt.Sprintf("/api/qr/%d/update", id), key, map[string]any{"logo": qrDataURI("image/png", tt.logo)}).
				wantStatus(t, http.StatusBadRequest).wantMessage(t, tt.want)
			if n := e.qrCount(t); n != 1 {
				t.Errorf("%d codes stored, want 1", n)
			}
			if q := e.qrStored(t, id); fmt.Sprint(q) != fmt.Sprint(before) {
				t.Errorf("refused update wrote the code")
			}
		})
	}
}

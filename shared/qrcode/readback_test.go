package qrcode

import (
	"image"
	"image/color"
	"math/rand/v2"
	"testing"
)

// TestCodesReadBack: every rendered code decodes, with and without a logo,
// including contents whose smallest level-H code zxing cannot find (found
// through a flaky admin test: the logo was not the cause), and a sweep of
// random short-link contents.
func TestCodesReadBack(t *testing.T) {
	logo := image.NewNRGBA(image.Rect(0, 0, 300, 300))
	for i := 0; i < len(logo.Pix); i += 4 {
		logo.Pix[i], logo.Pix[i+1], logo.Pix[i+2], logo.Pix[i+3] = 0, 90, 170, 255
	}
	contents := []string{"http://127.0.0.1:8080/q/pgxPRF", "http://127.0.0.1:8080/q/GYOPFG"}
	rng := rand.New(rand.NewPCG(3, 4))
	const alpha = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for range 40 {
		b := make([]byte, 6)
		for j := range b {
			b[j] = alpha[rng.IntN(len(alpha))]
		}
		contents = append(contents, "https://sho.rt/q/"+string(b))
	}
	for i, content := range contents {
		for _, lg := range []image.Image{nil, logo} {
			if lg == nil && i >= 2 {
				continue // the sweep is about the logo's level H
			}
			out, err := Render(content, Options{Size: 600, Foreground: color.RGBA{A: 255}, Background: color.RGBA{255, 255, 255, 255}, Logo: lg})
			if err != nil {
				t.Fatal(err)
			}
			if got := decodeQR(t, decodePNG(t, out, 600)); got != content {
				t.Fatalf("%q (logo %v) reads as %q", content, lg != nil, got)
			}
		}
	}
}

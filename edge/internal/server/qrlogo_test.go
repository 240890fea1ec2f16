package server

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"runtime"
	"testing"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
)

// bigLogo is a 2048×2048 PNG, the largest logo the admin stored before
// logos were stored pre-scaled: 16 MiB of pixels once decoded.
func bigLogo(t *testing.T) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 2048, 2048))
	for y := 600; y < 1448; y++ {
		for x := 600; x < 1448; x++ {
			img.SetNRGBA(x, y, color.NRGBA{0, 90, 170, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestQRScanNeverDecodesLogo: a scan (/q/{code}) loads the code but never
// decodes its logo. The first image render does, scaled to what a render
// draws, and the image shows the logo and still scans.
func TestQRScanNeverDecodesLogo(t *testing.T) {
	e := newEnv(t)
	e.exec(`INSERT INTO qr_codes (user_id, code, type, data, content, target_url, logo)
		VALUES ($1, 'Logo1', 'link', '"https://example.com/"', 'http://kurz.test/q/Logo1', 'https://example.com/', $2)`,
		e.user, bigLogo(t))

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	expect(t, e.do(req{path: "/q/Logo1"}), 302, "https://example.com/")
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 4<<20 {
		t.Errorf("a scan allocated %d MiB: the logo was decoded", d>>20)
	}

	r := e.do(req{path: "/qr/Logo1?size=600"})
	expect(t, r, 200, "")
	img, err := png.Decode(bytes.NewReader(r.Body()))
	if err != nil {
		t.Fatal(err)
	}
	if c := color.RGBAModel.Convert(img.At(300, 300)).(color.RGBA); c != (color.RGBA{0, 90, 170, 255}) {
		t.Errorf("centre pixel %v: the logo is not drawn", c)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_TRY_HARDER: true})
	if err != nil {
		t.Fatalf("decode QR with logo: %v", err)
	}
	if res.GetText() != "http://kurz.test/q/Logo1" {
		t.Errorf("decoded %q", res.GetText())
	}
}

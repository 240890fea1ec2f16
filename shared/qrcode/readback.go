package qrcode

import (
	"image"
	"image/color"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
	qr "github.com/yeqown/go-qrcode/v2"
)

// readBackVersions is how many larger versions encode tries when a
// code's modules do not read back.
const readBackVersions = 3

// readsBack reports whether a decoder reads code's bare modules (4 px
// each, a 4-module quiet zone) as content. Why: about 0.5% of the level-H
// codes go-qrcode makes at the smallest version (3 of 600 random
// /q/{code} URLs) are not found by zxing's detector at any size, with or
// without a logo, while the same content one version up is; a code that
// a phone may not read must not be printed. The check is a small image:
// ~1 ms against the render itself.
func readsBack(code *qr.QRCode, content string) bool {
	bitmap, err := matrixOf(code)
	if err != nil || len(bitmap) == 0 {
		return false
	}
	const px = 4
	n := len(bitmap)
	side := (n + 2*quietZone) * px
	img := image.NewGray(image.Rect(0, 0, side, side))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y, row := range bitmap {
		for x, dark := range row {
			if !dark {
				continue
			}
			for dy := range px {
				for dx := range px {
					img.SetGray((quietZone+x)*px+dx, (quietZone+y)*px+dy, color.Gray{})
				}
			}
		}
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		return false
	}
	hints := map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_CHARACTER_SET: "UTF-8"}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, hints)
	return err == nil && res.GetText() == content
}

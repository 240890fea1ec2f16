package qrcode

import (
	"image"
	"image/color"

	xdraw "golang.org/x/image/draw"
)

// logoPlate scales logo to fit inside a square of side pixels (keeping its
// aspect ratio) and composites it onto an opaque plate of the background
// colour with a small margin. The plate hides the modules under the logo
// cleanly even when the logo is transparent, and error correction restores
// them.
func logoPlate(logo image.Image, side int, bg color.RGBA) image.Image {
	margin := max(side/16, 1)
	inner := max(side-2*margin, 1)
	b := logo.Bounds()
	w, h := b.Dx(), b.Dy()
	if w < 1 || h < 1 {
		w, h = 1, 1
	}
	// Fit the longer side to inner; the shorter keeps the aspect ratio.
	lw, lh := inner, inner
	if w > h {
		lh = max(h*inner/w, 1)
	} else if h > w {
		lw = max(w*inner/h, 1)
	}
	plate := image.NewRGBA(image.Rect(0, 0, lw+2*margin, lh+2*margin))
	xdraw.Draw(plate, plate.Bounds(), image.NewUniform(bg), image.Point{}, xdraw.Src)
	dst := image.Rect(margin, margin, margin+lw, margin+lh)
	xdraw.CatmullRom.Scale(plate, dst, logo, b, xdraw.Over, nil)
	return plate
}

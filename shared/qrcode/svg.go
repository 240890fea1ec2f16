package qrcode

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"strconv"

	qr "github.com/yeqown/go-qrcode/v2"
)

// renderSVG writes the code as an SVG whose viewBox is measured in modules,
// so it scales to any size. At its nominal Size it lays out exactly like the
// PNG: whole pixels per module, the rest as quiet-zone padding (a fractional
// module width made dense codes fail to decode). All dark modules form one
// <path> of horizontal runs; the only non-numeric content is the base64 logo.
func renderSVG(code *qr.QRCode, opt Options) ([]byte, error) {
	bitmap, err := matrixOf(code)
	if err != nil {
		return nil, err
	}
	dim := len(bitmap)
	g := svgGeometry(dim, opt.Size)
	size := strconv.Itoa(opt.Size)
	origin, side := num6(g.origin), num6(g.side)

	var b bytes.Buffer
	b.Grow(5*dim*dim + 512) // measured: about 4.3 bytes per module
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" width="`)
	b.WriteString(size + `" height="` + size + `" viewBox="` + origin + " " + origin + " " + side + " " + side + `" shape-rendering="crispEdges">` + "\n")
	b.WriteString(`<rect x="` + origin + `" y="` + origin + `" width="` + side + `" height="` + side + `" fill="` + hexColor(opt.Background) + `"/>` + "\n")
	b.WriteString(`<path fill="` + hexColor(opt.Foreground) + `" d="`)
	writeRuns(&b, bitmap)
	b.WriteString(`"/>` + "\n")
	if opt.Logo != nil {
		if err := writeLogo(&b, opt, g); err != nil {
			return nil, err
		}
	}
	b.WriteString("</svg>\n")
	return b.Bytes(), nil
}

// geometry maps pixels of the nominal size to viewBox units (modules, with
// module (0,0) at the origin of the coordinate system).
type geometry struct {
	block  float64 // pixels per module
	origin float64 // viewBox min-x and min-y (negative: the padding)
	side   float64 // viewBox width and height
}

func svgGeometry(dim, size int) geometry {
	var block, pad float64
	if b := size / (dim + 2*quietZone); b >= 1 {
		// Same integral layout as renderPNG.
		block, pad = float64(b), float64((size-b*dim)/2)
	} else {
		// Too small for whole pixels: scale freely (a vector has no limit).
		block = float64(size) / float64(dim+2*quietZone)
		pad = quietZone * block
	}
	return geometry{block: block, origin: -pad / block, side: float64(size) / block}
}

// writeRuns emits "M x y h w v1 h-w z" for every horizontal run of dark
// modules.
func writeRuns(b *bytes.Buffer, bitmap [][]bool) {
	var num [20]byte
	for y, row := range bitmap {
		for x := 0; x < len(row); {
			if !row[x] {
				x++
				continue
			}
			run := 1
			for x+run < len(row) && row[x+run] {
				run++
			}
			b.WriteByte('M')
			b.Write(strconv.AppendInt(num[:0], int64(x), 10))
			b.WriteByte(' ')
			b.Write(strconv.AppendInt(num[:0], int64(y), 10))
			b.WriteByte('h')
			b.Write(strconv.AppendInt(num[:0], int64(run), 10))
			b.WriteString("v1h-")
			b.Write(strconv.AppendInt(num[:0], int64(run), 10))
			b.WriteByte('z')
			x += run
		}
	}
}

// writeLogo embeds the logo plate, rasterised at the pixel size it has at
// opt.Size, as a base64 PNG centred where renderPNG puts it.
func writeLogo(b *bytes.Buffer, opt Options, g geometry) error {
	plate := logoPlate(opt.Logo, opt.Size/5, opt.Background)
	var img bytes.Buffer
	if err := png.Encode(&img, plate); err != nil {
		return fmt.Errorf("render qr svg logo: %w", err)
	}
	pw, ph := plate.Bounds().Dx(), plate.Bounds().Dy()
	x := g.origin + float64((opt.Size-pw)/2)/g.block
	y := g.origin + float64((opt.Size-ph)/2)/g.block
	b.WriteString(`<image x="` + num6(x) + `" y="` + num6(y) + `" width="` + num6(float64(pw)/g.block) +
		`" height="` + num6(float64(ph)/g.block) + `" preserveAspectRatio="none" xlink:href="data:image/png;base64,`)
	enc := base64.NewEncoder(base64.StdEncoding, b)
	_, _ = enc.Write(img.Bytes()) // writes to a bytes.Buffer cannot fail
	_ = enc.Close()
	b.WriteString(`"/>` + "\n")
	return nil
}

// num6 formats v with at most six decimals, enough to keep every edge on the
// same pixel as the PNG at sizes up to MaxSize.
func num6(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}

func hexColor(c color.RGBA) string {
	const hex = "0123456789abcdef"
	return string([]byte{'#', hex[c.R>>4], hex[c.R&15], hex[c.G>>4], hex[c.G&15], hex[c.B>>4], hex[c.B&15]})
}

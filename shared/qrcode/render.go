package qrcode

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"strconv"
	"strings"

	qr "github.com/yeqown/go-qrcode/v2"
	"github.com/yeqown/go-qrcode/writer/standard"
)

// Size bounds of a rendered image in pixels. The API and the edge validate
// the requested size against these; Render clamps defensively.
const (
	MinSize     = 100
	MaxSize     = 2000
	DefaultSize = 300
)

// quietZone is the blank border in modules that the QR standard requires.
const quietZone = 4

// Byte-mode capacities of the largest QR version (40), the limit at the error
// correction level Render uses: M without a logo, H with one.
const (
	maxBytesNoLogo = 2331
	maxBytesLogo   = 1273
)

// Format is an output image format.
type Format int

// Output formats; the zero value is PNG.
const (
	FormatPNG Format = iota
	FormatSVG
)

// ParseFormat maps the ?format= query value ("", "png" or "svg",
// case-insensitive) to a Format.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "", "png":
		return FormatPNG, nil
	case "svg":
		return FormatSVG, nil
	}
	return 0, invalid("format", "must be png or svg")
}

// ContentType is the HTTP Content-Type of the format.
func (f Format) ContentType() string {
	if f == FormatSVG {
		return "image/svg+xml"
	}
	return "image/png"
}

// Options control Render.
type Options struct {
	Format Format
	// Size is the width and height in pixels, clamped to [MinSize, MaxSize].
	Size int
	// Foreground and Background default to black and white when their alpha
	// is 0 (the zero value). Alpha is otherwise ignored: images are opaque.
	Foreground, Background color.RGBA
	// Logo, when set, is drawn in the centre on a background-coloured plate
	// at most 1/5 of the image wide, and error correction goes up to H.
	Logo image.Image
}

// CheckFit reports whether text fits in a QR code at the error correction
// level Render will use. The error is a *ValidationError for "data", or for
// "logo" when only the logo makes it too long.
func CheckFit(text string, withLogo bool) error {
	n := len(text)
	if n > maxBytesNoLogo {
		return invalid("data", "too long for a QR code: at most "+strconv.Itoa(maxBytesNoLogo)+
			" bytes encoded, got "+strconv.Itoa(n))
	}
	if withLogo && n > maxBytesLogo {
		return invalid("logo", "data too long for a QR code with a logo: at most "+
			strconv.Itoa(maxBytesLogo)+" bytes encoded, got "+strconv.Itoa(n)+"; remove the logo or shorten the data")
	}
	return nil
}

// Render draws content as a QR image. A PNG is exactly Size×Size pixels with
// crisp, equally sized modules and at least a 4-module quiet zone; when the
// content needs more modules than that allows, the error is a *SizeError.
// An SVG is vector (viewBox in modules) with Size as its width and height.
func Render(content string, opt Options) ([]byte, error) {
	if content == "" {
		return nil, errors.New("render qr: empty content")
	}
	if err := CheckFit(content, opt.Logo != nil); err != nil {
		return nil, fmt.Errorf("render qr: %w", err)
	}
	opt = withDefaults(opt)
	if err := CheckContrast(opt.Foreground, opt.Background); err != nil {
		return nil, fmt.Errorf("render qr: %w", err)
	}
	code, err := encode(content, opt.Logo != nil)
	if err != nil {
		return nil, err
	}
	switch opt.Format {
	case FormatPNG:
		return renderPNG(code, opt)
	case FormatSVG:
		return renderSVG(code, opt)
	}
	return nil, fmt.Errorf("render qr: unknown format %d", opt.Format)
}

func withDefaults(opt Options) Options {
	opt.Size = min(max(opt.Size, MinSize), MaxSize)
	if opt.Foreground.A == 0 {
		opt.Foreground = DefaultForeground
	}
	if opt.Background.A == 0 {
		opt.Background = DefaultBackground
	}
	opt.Foreground.A, opt.Background.A = 255, 255
	return opt
}

// encode builds the QR code in byte mode, so capacity depends only on the
// byte length (what CheckFit checks) and not on the character mix.
func encode(content string, withLogo bool) (*qr.QRCode, error) {
	level := qr.ErrorCorrectionMedium
	if withLogo {
		// A logo hides modules; H restores up to 30% of them.
		level = qr.ErrorCorrectionHighest
	}
	code, err := qr.NewWith(content, qr.WithEncodingMode(qr.EncModeByte), qr.WithErrorCorrectionLevel(level))
	if err != nil {
		return nil, fmt.Errorf("encode qr: %w", err)
	}
	// A code that does not read back is replaced by the same content one
	// version (4 modules a side) up, which does (readsBack); if none of a
	// few does, the smallest stays: it is still a valid code.
	if readsBack(code, content) {
		return code, nil
	}
	first := version(code)
	for v := first + 1; v <= min(first+readBackVersions, 40); v++ {
		next, err := qr.NewWith(content, qr.WithEncodingMode(qr.EncModeByte), qr.WithErrorCorrectionLevel(level), qr.WithVersion(v))
		if err != nil {
			break
		}
		if readsBack(next, content) {
			return next, nil
		}
	}
	return code, nil
}

// version is code's QR version (1-40), from its modules a side.
func version(code *qr.QRCode) int { return (code.Dimension() - 17) / 4 }

// MinPNGSize is the smallest PNG size at which content renders (one pixel per
// module plus the quiet zone), for callers that want to clamp instead of
// failing with a *SizeError.
func MinPNGSize(content string, withLogo bool) (int, error) {
	code, err := encode(content, withLogo)
	if err != nil {
		return 0, err
	}
	return max(code.Dimension()+2*quietZone, MinSize), nil
}

// renderPNG lets yeqown's standard writer draw the code with an integral
// module width and borders that pad it to exactly opt.Size pixels, so no
// resampling blurs the modules.
func renderPNG(code *qr.QRCode, opt Options) ([]byte, error) {
	dim := code.Dimension()
	block := opt.Size / (dim + 2*quietZone)
	if block < 1 {
		return nil, fmt.Errorf("render qr png: %w", &SizeError{Size: opt.Size, Min: dim + 2*quietZone})
	}
	block = min(block, 255) // the writer takes a uint8; unreachable at MaxSize
	pad := opt.Size - block*dim
	left, top := pad/2, pad/2
	right, bottom := pad-left, pad-top

	imgOpts := []standard.ImageOption{
		standard.WithQRWidth(uint8(block)),
		standard.WithBorderWidth(top, right, bottom, left),
		standard.WithFgColor(opt.Foreground),
		standard.WithBgColor(opt.Background),
		standard.WithCustomImageEncoder(pngEncoder{}),
	}
	if opt.Logo != nil {
		// The writer silently skips a logo wider than 1/5 of the image, so the
		// plate is sized to fit that bound.
		imgOpts = append(imgOpts, standard.WithLogoImage(logoPlate(opt.Logo, opt.Size/5, opt.Background)))
	}
	var buf bytes.Buffer
	if err := code.Save(standard.NewWithWriter(nopCloser{&buf}, imgOpts...)); err != nil {
		return nil, fmt.Errorf("render qr png: %w", err)
	}
	return buf.Bytes(), nil
}

// pngEncoder trades a little size for speed; images are cached by the edge.
type pngEncoder struct{}

func (pngEncoder) Encode(w io.Writer, img image.Image) error {
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return enc.Encode(w, img)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// matrixOf returns the modules as bitmap[y][x], true for dark.
func matrixOf(code *qr.QRCode) ([][]bool, error) {
	var c matrixCapture
	if err := code.Save(&c); err != nil {
		return nil, fmt.Errorf("read qr matrix: %w", err)
	}
	return c.bitmap, nil
}

// matrixCapture is a qr.Writer that keeps the module bitmap.
type matrixCapture struct{ bitmap [][]bool }

func (m *matrixCapture) Write(mat qr.Matrix) error {
	m.bitmap = mat.Bitmap()
	return nil
}

func (m *matrixCapture) Close() error { return nil }

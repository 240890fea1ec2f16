package qrcode

import (
	"image/color"
	"math"
	"strconv"
	"strings"

	"kurz/shared/link"
)

// MinContrast is the lowest WCAG contrast ratio accepted between foreground
// and background (the WCAG minimum for graphics). On its own it is not enough
// for scanners, see MaxLumaRatio.
const MinContrast = 3.0

// MaxLumaRatio caps the foreground's luma as a share of the background's.
// ZXing-family decoders binarise by blocks and read a uniform block as light
// unless a darker neighbour says otherwise, so a mid-tone foreground turns its
// large dark areas (finder centres at big module sizes) light. With gozxing,
// pairs passing 3:1 failed up to a luma ratio of 0.50 (for example
// rgb(2,108,233) on rgb(211,215,192)); none of 1300 random pairs at or below
// 0.45 failed at sizes 100–1200 px. See TestContrastBoundaryDecodes.
const MaxLumaRatio = 0.45

// ErrBadColor is returned by ParseRGB; its message is the rule, so the API can
// answer "background: " + err.Error(). It is link.ErrRGB: one colour parser
// serves QR codes and the #RRGGBB fields of channels and overlays.
var ErrBadColor = link.ErrRGB

// Default colours used when Options leave a colour unset.
var (
	DefaultForeground = color.RGBA{A: 255}
	DefaultBackground = color.RGBA{R: 255, G: 255, B: 255, A: 255}
)

// ParseRGB parses "rgb(r,g,b)" (case-insensitive, spaces allowed anywhere,
// decimal 0–255 each) or "#RRGGBB" into an opaque colour (link.ParseRGB).
func ParseRGB(s string) (color.RGBA, error) { return link.ParseRGB(s) }

// cutFold is strings.CutPrefix with an ASCII case-insensitive prefix.
func cutFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// FormatRGB renders c as "rgb(r,g,b)", the form the API stores and returns.
func FormatRGB(c color.RGBA) string {
	return "rgb(" + strconv.Itoa(int(c.R)) + "," + strconv.Itoa(int(c.G)) + "," + strconv.Itoa(int(c.B)) + ")"
}

// ContrastRatio is the WCAG 2 contrast ratio of two opaque colours, from 1
// (identical) to 21 (black on white).
func ContrastRatio(a, b color.RGBA) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// luminance is the WCAG relative luminance of an sRGB colour.
func luminance(c color.RGBA) float64 {
	lin := func(v uint8) float64 {
		f := float64(v) / 255
		if f <= 0.04045 {
			return f / 12.92
		}
		return math.Pow((f+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// CheckContrast requires a foreground darker than the background, with at
// least MinContrast and at most MaxLumaRatio. Inverted codes (light on dark)
// are refused because many phone scanners do not try the inverted image.
func CheckContrast(fg, bg color.RGBA) error {
	if luminance(fg) >= luminance(bg) {
		return invalid("foreground", "must be darker than background (light-on-dark codes do not scan on many phones)")
	}
	if r := ContrastRatio(fg, bg); r < MinContrast {
		return invalid("foreground", "contrast with background must be at least 3:1, got "+
			strconv.FormatFloat(math.Floor(r*100)/100, 'f', -1, 64)+":1")
	}
	if r := lumaRatio(fg, bg); r > MaxLumaRatio {
		return invalid("foreground", "too light for QR scanners against this background: its brightness must be at most 45% of the background's, got "+
			strconv.Itoa(int(math.Ceil(r*100)))+"%")
	}
	return nil
}

// lumaRatio is fg/bg brightness as decoders see it: the larger of the BT.601
// luma ratio (camera Y plane) and the (R+2G+B)/4 ratio that ZXing computes
// from RGB images.
func lumaRatio(fg, bg color.RGBA) float64 {
	y601 := func(c color.RGBA) float64 { return 0.299*float64(c.R) + 0.587*float64(c.G) + 0.114*float64(c.B) }
	yzx := func(c color.RGBA) float64 { return float64(int(c.R)+2*int(c.G)+int(c.B)) / 4 }
	// Only called once fg is darker than bg, so bg is not black and both
	// denominators are positive.
	return max(y601(fg)/y601(bg), yzx(fg)/yzx(bg))
}

package link

import (
	"errors"
	"fmt"
	"image/color"
	"strconv"
	"strings"
)

// Colours come in two notations: #RRGGBB (channels, overlays) and
// rgb(r,g,b) (QR codes, as the spec writes them). Both are accepted
// wherever a colour is, so one parser serves every field.

// ErrRGB is the rule ParseRGB enforces; its message reads after a field
// name ("background: must be …").
var ErrRGB = errors.New("must be rgb(r,g,b) with each value 0 to 255, or #RRGGBB")

// ErrColor is the rule a #RRGGBB-stored colour breaks.
var ErrColor = errors.New("must be a HEX colour such as #1A2B3C, or rgb(r,g,b) with each value 0 to 255")

// ParseRGB parses "rgb(r,g,b)" (case-insensitive, spaces allowed anywhere,
// decimal 0–255 each) or "#RRGGBB" (either case) into an opaque colour.
func ParseRGB(s string) (color.RGBA, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "#") {
		return parseHexRGB(s[1:])
	}
	if len(s) < 3 || !strings.EqualFold(s[:3], "rgb") {
		return color.RGBA{}, ErrRGB
	}
	inner := strings.TrimLeft(s[3:], " ")
	if !strings.HasPrefix(inner, "(") || !strings.HasSuffix(inner, ")") {
		return color.RGBA{}, ErrRGB
	}
	parts := strings.Split(inner[1:len(inner)-1], ",")
	if len(parts) != 3 {
		return color.RGBA{}, ErrRGB
	}
	var v [3]uint8
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" || len(p) > 3 || strings.TrimLeft(p, "0123456789") != "" {
			return color.RGBA{}, ErrRGB
		}
		n, err := strconv.Atoi(p)
		if err != nil || n > 255 {
			return color.RGBA{}, ErrRGB
		}
		v[i] = uint8(n)
	}
	return color.RGBA{R: v[0], G: v[1], B: v[2], A: 255}, nil
}

func parseHexRGB(h string) (color.RGBA, error) {
	if len(h) != 6 {
		return color.RGBA{}, ErrRGB
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return color.RGBA{}, ErrRGB
		}
	}
	n, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return color.RGBA{}, ErrRGB
	}
	return color.RGBA{R: uint8(n >> 16), G: uint8(n >> 8), B: uint8(n), A: 255}, nil
}

// ValidColor checks a colour given as #RRGGBB (case-insensitive) or
// rgb(r,g,b) and returns it as upper-case #RRGGBB, the stored form.
func ValidColor(s string) (string, error) {
	c, err := ParseRGB(s)
	if err != nil {
		return "", ErrColor
	}
	return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B), nil
}

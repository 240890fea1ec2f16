package qrcode

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/jpeg"
	"image/png"
	"strconv"
	"strings"
)

const (
	// MaxLogoBytes caps a logo file, whether fetched or sent as a data URI.
	MaxLogoBytes = 1 << 20
	// MaxLogoDimension caps logo width and height. A logo is drawn at most
	// MaxSize/5 = 400 px wide, and 2048×2048 keeps a decoded 16-bit image at
	// 32 MiB, so a hostile file cannot exhaust memory.
	MaxLogoDimension = 2048
)

var (
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
	jpegMagic = []byte{0xff, 0xd8, 0xff}
)

// DecodeLogo decodes a PNG or JPEG logo. The format is taken from the magic
// bytes, never from a claimed content type, and the dimensions are read from
// the header before decoding so a decompression bomb is refused without
// allocating its pixels. Errors are *ValidationError for field "logo".
func DecodeLogo(b []byte) (image.Image, error) {
	format, _, err := logoHeader(b)
	if err != nil {
		return nil, err
	}
	var img image.Image
	if format == logoPNG {
		img, err = png.Decode(bytes.NewReader(b))
	} else {
		img, err = jpeg.Decode(bytes.NewReader(b))
	}
	if err != nil {
		return nil, invalid("logo", "not a valid PNG or JPEG image")
	}
	return img, nil
}

// logoFormat is a logo file's format, known from its magic bytes.
type logoFormat int

const (
	logoPNG logoFormat = iota + 1
	logoJPEG
)

// logoHeader checks b's size, format and the dimensions in its header,
// decoding no pixels.
func logoHeader(b []byte) (logoFormat, image.Config, error) {
	var cfg image.Config
	if len(b) == 0 {
		return 0, cfg, invalid("logo", "empty image")
	}
	if len(b) > MaxLogoBytes {
		return 0, cfg, invalid("logo", "too large: at most 1 MiB")
	}
	var (
		format logoFormat
		err    error
	)
	switch {
	case bytes.HasPrefix(b, pngMagic):
		format = logoPNG
		cfg, err = png.DecodeConfig(bytes.NewReader(b))
	case bytes.HasPrefix(b, jpegMagic):
		format = logoJPEG
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(b))
	default:
		return 0, cfg, invalid("logo", "must be a PNG or JPEG image")
	}
	if err != nil {
		return 0, cfg, invalid("logo", "not a valid PNG or JPEG image")
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxLogoDimension || cfg.Height > MaxLogoDimension {
		return 0, cfg, invalid("logo", "must be at most "+strconv.Itoa(MaxLogoDimension)+"×"+
			strconv.Itoa(MaxLogoDimension)+" pixels")
	}
	return format, cfg, nil
}

// IsDataURI reports whether s looks like a data: URI (so the API can choose
// between ParseDataURI and fetching a URL).
func IsDataURI(s string) bool {
	_, ok := cutFold(strings.TrimSpace(s), "data:")
	return ok
}

// ParseDataURI decodes "data:image/png;base64,…" or "data:image/jpeg;base64,…"
// (image/jpg is accepted too) into at most MaxLogoBytes. Whether the bytes
// really are an image is DecodeLogo's job. Errors are *ValidationError for
// field "logo".
func ParseDataURI(s string) ([]byte, error) {
	const rule = "must be a data:image/png;base64 or data:image/jpeg;base64 URI"
	rest, ok := cutFold(strings.TrimSpace(s), "data:")
	if !ok {
		return nil, invalid("logo", rule)
	}
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, invalid("logo", rule)
	}
	switch strings.ToLower(meta) {
	case "image/png;base64", "image/jpeg;base64", "image/jpg;base64":
	default:
		return nil, invalid("logo", rule)
	}
	// Refuse oversized input before decoding so no big buffer is allocated.
	if len(payload) > base64.StdEncoding.EncodedLen(MaxLogoBytes) {
		return nil, invalid("logo", "too large: at most 1 MiB")
	}
	enc := base64.StdEncoding
	if !strings.HasSuffix(payload, "=") {
		enc = base64.RawStdEncoding
		if len(payload)%4 == 0 {
			enc = base64.StdEncoding
		}
	}
	b, err := enc.DecodeString(payload)
	if err != nil {
		return nil, invalid("logo", "invalid base64 data")
	}
	if len(b) == 0 {
		return nil, invalid("logo", "empty image")
	}
	if len(b) > MaxLogoBytes {
		return nil, invalid("logo", "too large: at most 1 MiB")
	}
	return b, nil
}

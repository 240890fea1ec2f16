package qrcode

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strconv"
	"sync"

	xdraw "golang.org/x/image/draw"
)

// A logo is decoded once, when its QR code is written: PrepareLogo turns
// the sent file into the stored form, a PNG that fits LogoSide×LogoSide and
// is at most MaxStoredLogoBytes. Renders then only ever decode that small
// PNG, lazily and once per loaded record (Logo), and a scan never does.

const (
	// LogoSide bounds a stored logo's width and height. A render draws the
	// logo on a plate at most MaxSize/5 = 400 px wide, so no render needs
	// more pixels than this.
	LogoSide = MaxSize / 5
	// MaxStoredLogoBytes caps the stored PNG. Flat logos take a few KiB and
	// a 400×400 photograph about 350 KiB; only near-noise images exceed it.
	MaxStoredLogoBytes = 512 << 10
	// MaxLogoCost bounds the memory a loaded stored logo holds: its bytes
	// plus its decoded pixels (4 bytes each). With at most 2331 bytes of
	// content and a 4 KiB target, a QR record held for rendering stays under
	// 1.2 MiB.
	MaxLogoCost = MaxStoredLogoBytes + 4*LogoSide*LogoSide
)

// PrepareLogo turns a sent logo (PNG or JPEG, checked by DecodeLogo: at most
// MaxLogoBytes and MaxLogoDimension² pixels, the dimensions read from the
// header before decoding) into its stored form: scaled down to fit
// LogoSide×LogoSide (never up), aspect ratio and transparency kept, encoded
// as PNG. Errors are *ValidationError for field "logo".
func PrepareLogo(b []byte) ([]byte, error) {
	img, err := DecodeLogo(b)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.DefaultCompression}
	if err := enc.Encode(&buf, fitLogo(img)); err != nil {
		return nil, fmt.Errorf("encode stored logo: %w", err)
	}
	if buf.Len() > MaxStoredLogoBytes {
		return nil, invalid("logo", "too detailed: "+strconv.Itoa(buf.Len()>>10)+" KiB as a PNG of at most "+
			strconv.Itoa(LogoSide)+"×"+strconv.Itoa(LogoSide)+" pixels, at most "+
			strconv.Itoa(MaxStoredLogoBytes>>10)+" KiB; use a simpler image")
	}
	return buf.Bytes(), nil
}

// PrepareLogoMemory bounds the memory PrepareLogo(b) holds at its peak,
// read from b's header alone, so a caller can reserve it under a memory cap
// before decoding anything. A file refused from its header costs next to
// nothing. Short-lived garbage (decoders without a fast path box a colour
// per pixel read) is left to the garbage collector and not counted.
func PrepareLogoMemory(b []byte) int64 {
	format, cfg, err := logoHeader(b)
	if err != nil {
		return 64 << 10
	}
	return prepareMemory(int64(len(b)), format, cfg.ColorModel, cfg.Width, cfg.Height)
}

// MaxPrepareLogoMemory is the most PrepareLogoMemory answers: a 1 MiB
// progressive CMYK JPEG of MaxLogoDimension² pixels, about 100 MiB.
var MaxPrepareLogoMemory = prepareMemory(MaxLogoBytes, logoJPEG, color.CMYKModel, MaxLogoDimension, MaxLogoDimension)

func prepareMemory(fileBytes int64, format logoFormat, model color.Model, w, h int) int64 {
	// Decoded pixels per source pixel. PNG: 4 bytes (8-bit) or 8 (16-bit),
	// half again while an interlaced image's passes are merged. JPEG: a
	// progressive file keeps 4 bytes of coefficients per component and
	// pixel beside its 1 (gray), 3 (YCbCr) or 4 (CMYK) bytes of pixels.
	var perPixel int64
	switch {
	case format == logoPNG && (model == color.RGBA64Model || model == color.NRGBA64Model || model == color.Gray16Model):
		perPixel = 12
	case format == logoPNG:
		perPixel = 6
	case model == color.GrayModel:
		perPixel = 5
	case model == color.CMYKModel:
		perPixel = 20
	default:
		perPixel = 15
	}
	px := int64(w) * int64(h)
	// fitLogo: the halved copies (under 1.4 bytes per source pixel),
	// CatmullRom's buffer (32 bytes per destination column and source row,
	// fewer than 2·LogoSide rows after halving) and the result.
	fit := px*3/2 + 32*LogoSide*int64(min(h, 2*LogoSide)) + 4*LogoSide*LogoSide
	// The file itself; the PNG encoder's buffers and the stored PNG.
	return fileBytes + px*perPixel + fit + 2<<20
}

// LoadLogo decodes a stored logo for rendering. Logos stored before
// PrepareLogo existed (PNG or JPEG up to MaxLogoDimension²) are scaled down
// here, so every loaded logo fits LogoSide×LogoSide at 4 bytes a pixel.
func LoadLogo(stored []byte) (image.Image, error) {
	img, err := DecodeLogo(stored)
	if err != nil {
		return nil, err
	}
	return fitLogo(img), nil
}

// fitLogo returns img as 8-bit RGBA scaled down to fit LogoSide×LogoSide.
// An image that already fits in 8-bit RGBA is returned as it is. A large
// image is first halved (2×2 box averages: ApproxBiLinear at exactly 2:1)
// while it is at least twice the bound, because CatmullRom holds 32 bytes
// per destination column and source row: 26 MiB for 2048 rows, 6.5 MiB
// after halving to 512. Pixels stay premultiplied, so transparent pixels
// add no colour to the averages.
func fitLogo(img image.Image) image.Image {
	b := img.Bounds()
	if b.Dx() <= LogoSide && b.Dy() <= LogoSide {
		switch img.(type) {
		case *image.NRGBA, *image.RGBA:
			return img
		}
	}
	for b.Dx() >= 2*LogoSide || b.Dy() >= 2*LogoSide {
		half := image.NewRGBA(image.Rect(0, 0, max(b.Dx()/2, 1), max(b.Dy()/2, 1)))
		xdraw.ApproxBiLinear.Scale(half, half.Bounds(), img, b, xdraw.Src, nil)
		img, b = half, half.Bounds()
	}
	w, h := b.Dx(), b.Dy()
	lw, lh := min(w, LogoSide), min(h, LogoSide)
	if w > h && w > LogoSide {
		lh = max(h*LogoSide/w, 1)
	} else if h >= w && h > LogoSide {
		lw = max(w*LogoSide/h, 1)
	}
	dst := image.NewRGBA(image.Rect(0, 0, lw, lh))
	if lw == w && lh == h {
		xdraw.Draw(dst, dst.Bounds(), img, b.Min, xdraw.Src)
	} else {
		xdraw.CatmullRom.Scale(dst, dst.Bounds(), img, b, xdraw.Src, nil)
	}
	return dst
}

// Logo is a stored logo held for rendering. It is decoded on the first
// Image call and only then, once however many renders ask at the same
// time: holding a Logo costs no CPU, so a record loaded for a scan, which
// never draws the logo, never decodes it. A nil *Logo is no logo.
type Logo struct {
	stored []byte
	key    string
	once   sync.Once
	img    image.Image
}

// NewLogo wraps stored logo bytes without decoding them; empty bytes are
// no logo (nil).
func NewLogo(stored []byte) *Logo {
	if len(stored) == 0 {
		return nil
	}
	sum := sha256.Sum256(stored)
	return &Logo{stored: stored, key: hex.EncodeToString(sum[:8])}
}

// Key identifies the logo's bytes, for keys of rendered images; "" for no
// logo.
func (l *Logo) Key() string {
	if l == nil {
		return ""
	}
	return l.key
}

// Image returns the decoded logo, or nil for no logo. Bytes that do not
// decode (never written by the API) are drawn as no logo.
func (l *Logo) Image() image.Image {
	if l == nil {
		return nil
	}
	l.once.Do(func() {
		if img, err := LoadLogo(l.stored); err == nil {
			l.img = img
		}
	})
	return l.img
}

// Cost is the most memory l holds once decoded, for cache accounting: at
// most MaxLogoCost for logos PrepareLogo stored, MaxLogoBytes more for
// older ones.
func (l *Logo) Cost() int64 {
	if l == nil {
		return 0
	}
	return int64(len(l.stored)) + 4*LogoSide*LogoSide
}

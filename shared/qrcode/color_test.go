package qrcode

import (
	"errors"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"
)

func TestParseRGB(t *testing.T) {
	tests := []struct {
		in   string
		want color.RGBA
	}{
		{"rgb(0,0,0)", color.RGBA{0, 0, 0, 255}},
		{"rgb(255,255,255)", color.RGBA{255, 255, 255, 255}},
		{" RGB( 12 , 34,56 ) ", color.RGBA{12, 34, 56, 255}},
		{"rgb (1, 2, 3)", color.RGBA{1, 2, 3, 255}},
		{"rgb(007,0,0)", color.RGBA{7, 0, 0, 255}},
		{"#1a2B3c", color.RGBA{0x1a, 0x2b, 0x3c, 255}},
		{"#FFFFFF", color.RGBA{255, 255, 255, 255}},
	}
	for _, tt := range tests {
		got, err := ParseRGB(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseRGB(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseRGBErrors(t *testing.T) {
	for _, in := range []string{
		"", "rgb()", "rgb(1,2)", "rgb(1,2,3,4)", "rgb(256,0,0)", "rgb(-1,0,0)", "rgb(1.5,0,0)",
		"rgb(1,2,3", "rgb 1,2,3", "rgba(1,2,3,1)", "rgb(1,,3)", "rgb(0x1,0,0)", "rgb(+1,0,0)", "rgb(1000,0,0)",
		"#fff", "#12345g", "#1234567", "red", "rgb(1,2,3)x", "rgb(1 0,0,0)", "rgb()()", "rgbx(1,2,3)",
	} {
		if c, err := ParseRGB(in); !errors.Is(err, ErrBadColor) {
			t.Errorf("ParseRGB(%q) = %v, %v; want ErrBadColor", in, c, err)
		}
	}
}

func TestFormatRGBRoundTrip(t *testing.T) {
	c := color.RGBA{1, 128, 255, 255}
	s := FormatRGB(c)
	if s != "rgb(1,128,255)" {
		t.Fatalf("FormatRGB = %q", s)
	}
	if got, err := ParseRGB(s); err != nil || got != c {
		t.Errorf("ParseRGB(FormatRGB(c)) = %v, %v", got, err)
	}
}

func TestContrastRatio(t *testing.T) {
	tests := []struct {
		a, b color.RGBA
		want float64
	}{
		{DefaultForeground, DefaultBackground, 21},
		{DefaultBackground, DefaultForeground, 21},
		{rgb(0x77, 0x77, 0x77), DefaultBackground, 4.48}, // WCAG reference: #777 on white ≈ 4.48
		{rgb(0x80, 0x80, 0x80), rgb(0x80, 0x80, 0x80), 1},
	}
	for _, tt := range tests {
		if got := ContrastRatio(tt.a, tt.b); math.Abs(got-tt.want) > 0.01 {
			t.Errorf("ContrastRatio(%v, %v) = %.3f, want %.2f", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestCheckContrast(t *testing.T) {
	tests := []struct {
		name   string
		fg, bg color.RGBA
		rule   string // "" = accepted
	}{
		{"black on white", DefaultForeground, DefaultBackground, ""},
		{"navy on yellow", rgb(0, 0, 128), rgb(255, 255, 0), ""},
		{"mid grey on white", rgb(0x72, 0x72, 0x72), DefaultBackground, ""},
		{"red on white", rgb(255, 0, 0), DefaultBackground, ""},
		{"grey 3:1 but too light", rgb(0x94, 0x94, 0x94), DefaultBackground, "at most 45% of the background's, got 59%"},
		{"blue on beige 3.3:1", rgb(2, 108, 233), rgb(211, 215, 192), "at most 45%"},
		{"light grey on white", rgb(0xbb, 0xbb, 0xbb), DefaultBackground, "at least 3:1, got 1.9"},
		{"dark on dark", rgb(0, 0, 0), rgb(40, 40, 40), "at least 3:1"},
		{"inverted", DefaultBackground, DefaultForeground, "darker than background"},
		{"same colour", rgb(9, 9, 9), rgb(9, 9, 9), "darker than background"},
		{"red on green", rgb(255, 0, 0), rgb(0, 255, 0), "at least 3:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckContrast(tt.fg, tt.bg)
			if tt.rule == "" {
				if err != nil {
					t.Fatalf("CheckContrast = %v, want nil", err)
				}
				return
			}
			assertValidation(t, err, "foreground", tt.rule)
		})
	}
}

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{r, g, b, 255} }

// TestContrastBoundaryDecodes renders colour pairs that CheckContrast only
// just accepts (ratio near 3:1 or luma share near MaxLumaRatio) at several
// sizes and requires every one to decode. The seed is fixed so a failure is
// reproducible.
func TestContrastBoundaryDecodes(t *testing.T) {
	r := rand.New(rand.NewPCG(20261122, 1))
	const content = "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;Jane;;;\r\nFN:Jane Doe\r\nTEL:+4930123456\r\nEND:VCARD\r\n"
	sizes := []int{150, 420, 900}
	for n := 0; n < 18; {
		fg := rgb(uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)))
		bg := rgb(uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)))
		if CheckContrast(fg, bg) != nil || (ContrastRatio(fg, bg) > 3.5 && lumaRatio(fg, bg) < 0.4) {
			continue
		}
		size := sizes[n%len(sizes)]
		n++
		b, err := Render(content, Options{Size: size, Foreground: fg, Background: bg})
		if err != nil {
			t.Fatalf("Render(%v on %v): %v", fg, bg, err)
		}
		if got := decodeQR(t, decodePNG(t, b, size)); got != content {
			t.Errorf("%v on %v at %d px decoded %q", fg, bg, size, got)
		}
	}
}

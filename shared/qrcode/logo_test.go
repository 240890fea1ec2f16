package qrcode

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"runtime"
	"strings"
	"testing"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pngHeader returns a PNG signature plus a valid IHDR chunk claiming w×h, with
// no pixel data: enough for DecodeConfig, the shape of a decompression bomb.
func pngHeader(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	var b bytes.Buffer
	b.Write(pngMagic)
	_ = binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func encodePNG(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDecodeLogo(t *testing.T) {
	for _, tt := range []struct {
		file string
		w, h int
	}{{"logo.png", 160, 96}, {"logo.jpg", 64, 64}} {
		img, err := DecodeLogo(readFixture(t, tt.file))
		if err != nil {
			t.Fatalf("DecodeLogo(%s): %v", tt.file, err)
		}
		if b := img.Bounds(); b.Dx() != tt.w || b.Dy() != tt.h {
			t.Errorf("%s: %dx%d, want %dx%d", tt.file, b.Dx(), b.Dy(), tt.w, tt.h)
		}
	}
	if _, err := DecodeLogo(encodePNG(t, MaxLogoDimension, 1)); err != nil {
		t.Errorf("DecodeLogo(%d px wide): %v", MaxLogoDimension, err)
	}
}

func TestDecodeLogoErrors(t *testing.T) {
	pngFile := readFixture(t, "logo.png")
	tests := []struct {
		name string
		in   []byte
		rule string
	}{
		{"empty", nil, "empty image"},
		{"gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), "must be a PNG or JPEG"},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), "must be a PNG or JPEG"},
		{"html claiming png", []byte("<html>\x89PNG"), "must be a PNG or JPEG"},
		{"too many bytes", append(bytes.Clone(pngFile), make([]byte, MaxLogoBytes)...), "at most 1 MiB"},
		{"bomb header", pngHeader(100000, 100000), "at most 2048×2048 pixels"},
		{"one pixel too wide", encodePNG(t, MaxLogoDimension+1, 1), "at most 2048×2048 pixels"},
		{"zero size", pngHeader(0, 10), "not a valid"},
		{"truncated png", pngFile[:60], "not a valid"},
		{"png header only", pngHeader(10, 10), "not a valid"},
		{"jpeg magic garbage", []byte("\xff\xd8\xff\xe0garbage"), "not a valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, err := DecodeLogo(tt.in)
			if img != nil {
				t.Errorf("got an image")
			}
			assertValidation(t, err, "logo", tt.rule)
		})
	}
}

// TestDecodeLogoBombAllocatesLittle proves the dimension check runs before
// any pixel buffer is allocated: 100000×100000 RGBA would be 40 GB.
func TestDecodeLogoBombAllocatesLittle(t *testing.T) {
	bomb := pngHeader(100000, 100000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		_, _ = DecodeLogo(bomb)
	}
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Errorf("10 bomb decodes allocated %d bytes", d)
	}
}

func TestParseDataURI(t *testing.T) {
	pngFile, jpgFile := readFixture(t, "logo.png"), readFixture(t, "logo.jpg")
	std, raw := base64.StdEncoding.EncodeToString, base64.RawStdEncoding.EncodeToString
	exact := bytes.Repeat([]byte{7}, MaxLogoBytes)
	tests := []struct {
		name, in string
		want     []byte
	}{
		{"png", "data:image/png;base64," + std(pngFile), pngFile},
		{"jpeg upper case", " DATA:IMAGE/JPEG;BASE64," + std(jpgFile) + " ", jpgFile},
		{"jpg alias", "data:image/jpg;base64," + std(jpgFile), jpgFile},
		{"unpadded", "data:image/png;base64," + raw(pngFile[:10]), pngFile[:10]},
		{"exactly 1 MiB", "data:image/png;base64," + std(exact), exact},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !IsDataURI(tt.in) {
				t.Errorf("IsDataURI = false")
			}
			got, err := ParseDataURI(tt.in)
			if err != nil {
				t.Fatalf("ParseDataURI: %v", err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Errorf("decoded %d bytes, want %d", len(got), len(tt.want))
			}
		})
	}
}

func TestParseDataURIErrors(t *testing.T) {
	std := base64.StdEncoding.EncodeToString
	tests := []struct{ name, in, rule string }{
		{"url", "https://example.com/logo.png", "must be a data:image/png;base64"},
		{"gif", "data:image/gif;base64,R0lGODlh", "must be a data:image/png;base64"},
		{"svg", "data:image/svg+xml;base64,PHN2Zz4=", "must be a data:image/png;base64"},
		{"not base64 encoded", "data:image/png,abc", "must be a data:image/png;base64"},
		{"extra parameter", "data:image/png;name=x;base64,AAAA", "must be a data:image/png;base64"},
		{"no comma", "data:image/png;base64", "must be a data:image/png;base64"},
		{"bad base64", "data:image/png;base64,!!!!", "invalid base64"},
		{"empty payload", "data:image/png;base64,", "empty image"},
		{"1 MiB + 1", "data:image/png;base64," + std(make([]byte, MaxLogoBytes+1)), "at most 1 MiB"},
		{"huge", "data:image/png;base64," + strings.Repeat("A", 3<<20), "at most 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDataURI(tt.in)
			assertValidation(t, err, "logo", tt.rule)
		})
	}
	if IsDataURI("https://example.com/x.png") {
		t.Error("IsDataURI(https URL) = true")
	}
}

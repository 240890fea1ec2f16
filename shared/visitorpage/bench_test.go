package visitorpage

import (
	"bytes"
	"testing"
)

// benchRender renders d repeatedly into one reused buffer, the way the edge
// renders into its response body.
func benchRender(b *testing.B, d Data) {
	b.Helper()
	p := newPages(b)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := p.Render(&buf, d); err != nil {
			b.Fatal(err)
		}
		_ = p.Headers(d)
	}
	b.SetBytes(int64(buf.Len()))
}

func BenchmarkRenderPixel(b *testing.B) {
	benchRender(b, &PixelPage{Destination: "https://shop.example.com/spring?utm_source=kurz", Pixels: []Pixel{
		{"socialnetworkpixel", "123456789012345"}, {"tagmanagerpixel", "GTM-AB12CD"}, {"analyticspixel", "G-XYZ123"},
		{"microblogpixel", "o1abc"}, {"shortvideo", "C1234567890"},
	}})
}

func BenchmarkRenderFrame(b *testing.B) {
	benchRender(b, &FramePage{Title: "Spring sale", Destination: "https://shop.example.com/spring?utm_source=kurz"})
}

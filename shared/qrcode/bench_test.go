package qrcode

import (
	"image"
	"os"
	"strconv"
	"testing"
)

func BenchmarkRender(b *testing.B) {
	raw, err := os.ReadFile("testdata/logo.png")
	if err != nil {
		b.Fatal(err)
	}
	logo, err := DecodeLogo(raw)
	if err != nil {
		b.Fatal(err)
	}
	const content = "https://kurz.example/q/Ab3dE"
	for _, f := range []struct {
		name   string
		format Format
	}{{"png", FormatPNG}, {"svg", FormatSVG}} {
		for _, size := range []int{300, 1000} {
			for _, lg := range []struct {
				name string
				img  image.Image
			}{{"plain", nil}, {"logo", logo}} {
				opt := Options{Format: f.format, Size: size, Logo: lg.img}
				b.Run(f.name+"/"+strconv.Itoa(size)+"/"+lg.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, err := Render(content, opt); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

func BenchmarkBuildContent(b *testing.B) {
	data := []byte(`{"name":"Jane Doe","org":"Acme, Inc","phone":"+49 30 1234","email":"jane@acme.example","url":"https://acme.example"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BuildContent(TypeVCard, data); err != nil {
			b.Fatal(err)
		}
	}
}

package visitorpage

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// templatePreview renders d with templates/preview.html, the definition
// the fast writer must match.
func templatePreview(t testing.TB, p *Pages, d *PreviewPage) ([]byte, error) {
	t.Helper()
	v, err := previewPage(d)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := p.sets[kindPreview].ExecuteTemplate(&buf, "page", v); err != nil {
		t.Fatalf("template: %v", err)
	}
	return buf.Bytes(), nil
}

// checkPreview fails unless AppendPreview and the template agree on d:
// the same bytes, or both refusing it as unsafe.
func checkPreview(t testing.TB, p *Pages, d *PreviewPage) {
	t.Helper()
	want, werr := templatePreview(t, p, d)
	got, gerr := p.AppendPreview([]byte("keep:"), d)
	switch {
	case werr != nil || gerr != nil:
		if !errors.Is(werr, ErrUnsafeURL) || !errors.Is(gerr, ErrUnsafeURL) || string(got) != "keep:" {
			t.Fatalf("%+v: template error %v, writer error %v (output %q)", d, werr, gerr, got)
		}
	case !bytes.Equal(got, append([]byte("keep:"), want...)):
		t.Fatalf("%+v: writer and template differ\nwriter:   %q\ntemplate: %q", d, got, want)
	}
}

// previewInputs: the XSS payloads, every byte value, escapes the URL
// normaliser treats specially, invalid UTF-8 and random byte strings.
func previewInputs(t *testing.T) []string {
	in := append(loadPayloads(t), "", "plain", "a+b&c", `"'<>`, "\x00", "%", "%4", "%41", "%4g", "%%41",
		"é ü 日本", "\xff\xfe", "\xe2\x82", "javascript:alert(1)", "#frag", "?q=1&r=2", "\u2028\u2029", "\ufdd0\ufffe")
	for c := range 256 {
		in = append(in, string([]byte{byte(c)}), "x"+string([]byte{byte(c)})+"%2F")
	}
	r := rand.New(rand.NewPCG(7, 11))
	for range 300 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		in = append(in, string(b))
	}
	return in
}

func TestPreviewMatchesTemplate(t *testing.T) {
	p := newPages(t)
	for _, x := range previewInputs(t) {
		for mask := range 16 {
			d := &PreviewPage{Destination: "https://dest.test/p?q=" + x}
			if mask&1 != 0 {
				d.Title = x
			}
			if mask&2 != 0 {
				d.Description = x
			}
			if mask&4 != 0 {
				d.Image = "https://img.test/" + x
			}
			if mask&8 != 0 {
				d.URL = "http://kurz.test/" + x
			}
			checkPreview(t, p, d)
			// The same values where only a URL is expected: most are refused
			// there and must be left out by both.
			checkPreview(t, p, &PreviewPage{Title: x, Image: x, URL: x, Destination: "https://dest.test/" + x})
		}
	}
}

func FuzzPreviewMatchesTemplate(f *testing.F) {
	f.Add("Spring sale", "Up to 50% off & more", "https://img.test/a.png", "https://kurz.test/s", "https://shop.test/?a=1&b=2")
	f.Add(`"><script>alert(1)</script>`, "\x00'+", "javascript:alert(1)", "//evil.test", "https://x.test/%zz%41")
	p := newPages(f)
	f.Fuzz(func(t *testing.T, title, desc, image, url, dest string) {
		checkPreview(t, p, &PreviewPage{Title: title, Description: desc, Image: image, URL: url, Destination: dest})
	})
}

func BenchmarkRenderPreview(b *testing.B) {
	p := newPages(b)
	d := &PreviewPage{Title: "Spring sale: up to 50% off", Description: "Everything in the shop & more, this week only",
		Image: "https://cdn.example.com/spring.png", URL: "https://kurz.test/spring",
		Destination: "https://shop.example.com/spring?utm_source=kurz&utm_medium=social"}
	b.Run("writer", func(b *testing.B) {
		buf := make([]byte, 0, 4096)
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if buf, err = p.AppendPreview(buf[:0], d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("template", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := templatePreview(b, p, d); err != nil {
				b.Fatal(err)
			}
		}
	})
}

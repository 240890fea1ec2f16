package server

import (
	"bytes"
	"image/png"
	"testing"
)

// TestQRImageSizeSnapped: /qr/{code}?size= is rounded to the nearest
// multiple of 50, so a loop over 100..2000 makes at most 39 renders per
// format and code instead of 1901.
func TestQRImageSizeSnapped(t *testing.T) {
	e := newEnv(t)
	e.exec(`INSERT INTO qr_codes (user_id, code, type, data, content) VALUES ($1, 'Snap1', 'text', '"snap"', 'snap')`, e.user)
	for _, tt := range []struct {
		sizes []string
		want  int
	}{
		{[]string{"326", "333", "350", "374"}, 350},
		{[]string{"100", "124"}, 100},
		{[]string{"1976", "1999", "2000"}, 2000},
	} {
		var etag string
		for _, size := range tt.sizes {
			r := e.do(req{path: "/qr/Snap1?size=" + size})
			expect(t, r, 200, "")
			img, err := png.Decode(bytes.NewReader(r.Body()))
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != tt.want || b.Dy() != tt.want {
				t.Errorf("size=%s: %dx%d, want %dx%d", size, b.Dx(), b.Dy(), tt.want, tt.want)
			}
			if tag := string(r.Header.Peek("ETag")); etag == "" {
				etag = tag
			} else if tag != etag {
				t.Errorf("size=%s: ETag %s, want the %d px image's %s", size, tag, tt.want, etag)
			}
		}
	}
}

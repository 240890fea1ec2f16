package dashboard

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// postFile posts fields and, unless name is "", a file logo_file of that
// name and content to path as multipart/form-data, the way the browser
// sends the QR form.
func (c *client) postFile(path string, fields url.Values, name string, content []byte) page {
	c.e.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, vs := range fields {
		for _, v := range vs {
			if err := w.WriteField(k, v); err != nil {
				c.e.t.Fatal(err)
			}
		}
	}
	// An empty name is the browser's part for "no file chosen".
	fw, err := w.CreateFormFile("logo_file", name)
	if err != nil {
		c.e.t.Fatal(err)
	}
	if _, err := fw.Write(content); err != nil {
		c.e.t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		c.e.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, c.e.base+path, &body)
	if err != nil {
		c.e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	res, err := c.hc.Do(req)
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return page{status: res.StatusCode, header: res.Header, body: string(b)}
}

func testPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 48, 48))
	for i := range img.Pix {
		img.Pix[i] = 0x90
	}
	img.Set(2, 2, color.Black)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestQRLogoFile: a logo picked as a file is stored as the API stores a
// data: URI; what is not a PNG or JPEG, too large, or given beside a URL
// is refused next to the file field with nothing written; the edit form
// replaces a logo with a file; the form still needs its CSRF token.
func TestQRLogoFile(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	c := e.client()
	c.signIn("ann")
	tok := c.token("/qr/new")
	if p := c.get("/qr/new"); !strings.Contains(p.body, `enctype="multipart/form-data"`) ||
		!strings.Contains(p.body, `<input id="f-logo_file" name="logo_file" type="file" accept="image/png,image/jpeg"`) {
		t.Fatalf("the form has no file field: %s", p.body)
	}
	base := func() url.Values {
		return url.Values{"csrf": {tok}, "do": {"save"}, "type": {"text"}, "name": {"Menu"}, "text_data": {"Table 7"},
			"foreground": {"#000000"}, "background": {"#ffffff"}}
	}
	big := append(testPNG(t), make([]byte, 1<<20)...)
	for _, tc := range []struct {
		name, file string
		content    []byte
		logoURL    string
		want       string
	}{
		{"not an image", "menu.png", []byte("<svg onload=alert(1)>"), "", "Not a PNG or JPEG image"},
		{"too large", "big.png", big, "", "Too large: at most 1 MiB"},
		{"a broken PNG", "broken.png", append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 40)...), "", "Not a valid PNG or JPEG image"},
		{"URL and file", "logo.png", testPNG(t), "https://example.com/logo.png", "not both"},
	} {
		f := base()
		if tc.logoURL != "" {
			f.Set("logo", tc.logoURL)
		}
		p := c.postFile("/qr/new", f, tc.file, tc.content)
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="f-logo_file-error"`) || !strings.Contains(errorsOf(p.body), tc.want) {
			t.Errorf("%s: status %d, errors %s", tc.name, p.status, errorsOf(p.body))
		}
	}
	// A good file on a form refused for another field: asked for again.
	bad := base()
	bad.Set("foreground", "#fefefe")
	if p := c.postFile("/qr/new", bad, "logo.png", testPNG(t)); p.status != http.StatusBadRequest ||
		!strings.Contains(p.body, `id="f-foreground-error"`) || !strings.Contains(errorsOf(p.body), "Pick the file again") {
		t.Errorf("a refused form with a good file: status %d, errors %s", p.status, errorsOf(p.body))
	}
	if n := countQRs(t, e, ann.ID); n != 0 {
		t.Fatalf("refused forms wrote %d codes", n)
	}
	// No file chosen: the browser still sends an empty part.
	if p := c.postFile("/qr/new", base(), "", nil); p.status != http.StatusSeeOther {
		t.Fatalf("without a file: %d %s", p.status, errorsOf(p.body))
	}
	if q := onlyQR(t, e, ann.ID); q.HasLogo {
		t.Fatal("a logo was stored without a file")
	}
	f := base()
	f.Set("name", "With logo")
	if p := c.postFile("/qr/new", f, "logo.png", testPNG(t)); p.status != http.StatusSeeOther {
		t.Fatalf("with a file: %d %s", p.status, errorsOf(p.body))
	}
	if n := countQRs(t, e, ann.ID); n != 2 {
		t.Fatalf("%d codes, want 2", n)
	}
	qrs, _, _ := e.store.ListQRs(t.Context(), ann.ID, 10, 0)
	var withLogo, without int64
	for _, q := range qrs {
		if q.Name == "With logo" && q.HasLogo {
			withLogo = q.ID
		}
		if q.Name == "Menu" {
			without = q.ID
		}
	}
	if withLogo == 0 || without == 0 {
		t.Fatalf("stored %+v", qrs)
	}
	// Editing: a file gives the code a logo; a file and "remove" is refused.
	edit := fmt.Sprintf("/qr/%d/edit", without)
	etok := c.token(edit)
	ef := url.Values{"csrf": {etok}, "do": {"save"}, "name": {"Menu"}, "text_data": {"Table 7"}, "foreground": {"#000000"}, "background": {"#ffffff"}}
	ef.Set("logo_remove", "1")
	if p := c.postFile(edit, ef, "logo.png", testPNG(t)); p.status != http.StatusBadRequest || !strings.Contains(errorsOf(p.body), "not both") {
		t.Errorf("file and remove: status %d, errors %s", p.status, errorsOf(p.body))
	}
	ef.Del("logo_remove")
	if p := c.postFile(edit, ef, "logo.png", testPNG(t)); p.status != http.StatusSeeOther {
		t.Fatalf("edit with a file: %d %s", p.status, errorsOf(p.body))
	}
	if q, err := e.store.QRByID(t.Context(), ann.ID, without); err != nil || !q.HasLogo {
		t.Fatalf("after the edit: %+v, %v", q, err)
	}
	// The preview button sends the page back without the file: said so.
	pf := base()
	pf.Set("do", "preview")
	if p := c.postFile("/qr/new", pf, "logo.png", testPNG(t)); p.status != http.StatusOK || !strings.Contains(errorsOf(p.body), "Pick the file again") {
		t.Errorf("preview with a file: status %d, errors %s", p.status, errorsOf(p.body))
	}
	// Only the QR forms take a multipart body, and only signed in.
	if p := c.postFile("/links/new", url.Values{"csrf": {tok}, "url": {"https://example.com/"}}, "logo.png", testPNG(t)); p.status != http.StatusBadRequest {
		t.Errorf("multipart to the link form: status %d", p.status)
	}
	anon := e.client()
	atok := anon.token("/login")
	if p := anon.postFile("/qr/new", url.Values{"csrf": {atok}}, "logo.png", testPNG(t)); p.status != http.StatusForbidden {
		t.Errorf("multipart without a session: status %d", p.status)
	}
	// The token is still required in a multipart body.
	nf := base()
	nf.Del("csrf")
	if p := c.postFile("/qr/new", nf, "logo.png", testPNG(t)); p.status != http.StatusForbidden {
		t.Errorf("multipart without a token: status %d", p.status)
	}
}

func countQRs(t *testing.T, e *env, userID int64) int {
	t.Helper()
	qrs, _, err := e.store.ListQRs(t.Context(), userID, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	return len(qrs)
}

package dashboard

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"html"
	"image/png"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"kurz/shared/click"
	"kurz/shared/link"
)

// QR code pages: every type through api.Server.AddQR, errors on their
// fields, the preview, downloads, scans from ClickHouse.

func TestQRCreateEveryType(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	c := e.client()
	c.signIn("ann")
	tok := c.token("/qr/new")
	for _, tc := range []struct {
		typ    string
		fields url.Values
		want   string // in the stored content
	}{
		{"link", url.Values{"link_data": {"https://example.com/menu"}}, "http://sho.rt/q/"},
		{"text", url.Values{"text_data": {"Table 7"}}, "Table 7"},
		{"vcard", url.Values{"vcard_name": {"Maria Muster"}, "vcard_phone": {"+49 30 1234567"}, "vcard_email": {"maria@example.com"}}, "BEGIN:VCARD"},
		{"email", url.Values{"email_email": {"hello@example.com"}, "email_subject": {"Hi"}}, "mailto:hello@example.com"},
		{"phone", url.Values{"phone_phone": {"+49 30 1234567"}}, "tel:"},
		{"sms", url.Values{"sms_phone": {"+49301234567"}, "sms_message": {"Call me"}}, "Call me"},
		{"wifi", url.Values{"wifi_ssid": {"Cafe"}, "wifi_password": {"secret123"}, "wifi_encryption": {"WPA"}, "wifi_hidden": {"1"}}, "WIFI:T:WPA;S:Cafe;P:secret123;H:true"},
	} {
		f := url.Values{"csrf": {tok}, "do": {"save"}, "type": {tc.typ}, "name": {"my " + tc.typ},
			"foreground": {"#1a2b3c"}, "background": {"#ffffff"}}
		for k, v := range tc.fields {
			f[k] = v
		}
		if p := c.post("/qr/new", f); p.status != http.StatusSeeOther {
			t.Fatalf("%s: status %d: %s", tc.typ, p.status, errorsOf(p.body))
		}
		qrs, _, err := e.store.ListQRs(context.Background(), ann.ID, 1, 0)
		if err != nil || len(qrs) != 1 {
			t.Fatal(qrs, err)
		}
		q := qrs[0]
		if q.Type != tc.typ || !strings.Contains(q.Content, tc.want) || q.Name != "my "+tc.typ || q.Foreground != "rgb(26,43,60)" {
			t.Errorf("%s: stored %+v", tc.typ, q)
		}
	}
	list := c.get("/qr")
	for _, s := range []string{"Contact card", "Wi-Fi", "https://example.com/menu", `/image.svg?download=1`} {
		if !strings.Contains(list.body, s) {
			t.Errorf("list lacks %s", s)
		}
	}
}

func TestQRFormErrors(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	c := e.client()
	c.signIn("ann")
	tok := c.token("/qr/new")
	for _, tc := range []struct {
		name   string
		fields url.Values
		errID  string
	}{
		{"wifi without a network", url.Values{"type": {"wifi"}, "wifi_password": {"kept-secret"}, "wifi_encryption": {"WPA"}}, "f-wifi_ssid-error"},
		{"bad link", url.Values{"type": {"link"}, "link_data": {"javascript:alert(1)"}}, "f-link_data-error"},
		{"no contrast", url.Values{"type": {"text"}, "text_data": {"hi"}, "foreground": {"#ffffff"}, "background": {"#fefefe"}}, "f-foreground-error"},
		{"logo not a URL", url.Values{"type": {"text"}, "text_data": {"hi"}, "logo": {"file:///etc/passwd"}}, "f-logo-error"},
		{"unknown type", url.Values{"type": {"fax"}}, "f-type-error"},
	} {
		f := url.Values{"csrf": {tok}, "do": {"save"}, "name": {`<b>kept</b>`}}
		for k, v := range tc.fields {
			f[k] = v
		}
		p := c.post("/qr/new", f)
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="`+tc.errID+`"`) {
			t.Errorf("%s: status %d, errors %s", tc.name, p.status, errorsOf(p.body))
		}
		if !strings.Contains(p.body, `value="&lt;b&gt;kept&lt;/b&gt;"`) {
			t.Errorf("%s: the name typed was lost or not escaped", tc.name)
		}
	}
	if qrs, _, _ := e.store.ListQRs(context.Background(), ann.ID, 10, 0); len(qrs) != 0 {
		t.Fatalf("refused forms wrote %d codes", len(qrs))
	}
}

var dataPNG = regexp.MustCompile(`src="data:image/png;base64,([^"]+)"`)

func TestQRPreviewAndImages(t *testing.T) {
	e := newEnv(t)
	ann, bob := e.user("ann"), e.user("bob")
	c := e.client()
	c.signIn("ann")
	tok := c.token("/qr/new")
	f := url.Values{"type": {"wifi"}, "wifi_ssid": {"Cafe"}, "wifi_encryption": {"nopass"}, "foreground": {"#3730a3"}, "background": {"#ffffff"}}
	p := c.do(http.MethodPost, "/qr/preview", f, map[string]string{"X-CSRF-Token": tok})
	m := dataPNG.FindStringSubmatch(p.body)
	if p.status != http.StatusOK || m == nil {
		t.Fatalf("preview: %d %s", p.status, p.body)
	}
	raw, _ := base64.StdEncoding.DecodeString(html.UnescapeString(m[1]))
	if img, err := png.Decode(bytes.NewReader(raw)); err != nil || img.Bounds().Dx() != 240 {
		t.Fatalf("preview image: %v", err)
	}
	f.Set("wifi_ssid", "")
	if p := c.do(http.MethodPost, "/qr/preview", f, map[string]string{"X-CSRF-Token": tok}); !strings.Contains(p.body, "Network name (SSID): required") {
		t.Errorf("preview of a bad form: %s", p.body)
	}
	// Without JavaScript: the button shows the page with the preview.
	f.Set("wifi_ssid", "Cafe")
	f.Set("csrf", tok)
	f.Set("do", "preview")
	if p := c.post("/qr/new", f); p.status != http.StatusOK || !dataPNG.MatchString(p.body) || !strings.Contains(p.body, `value="Cafe"`) {
		t.Errorf("preview button: %d", p.status)
	}
	for _, path := range []string{"/qr/new", "/qr/preview"} {
		if p := c.post(path, url.Values{"type": {"text"}, "text_data": {"x"}, "do": {"save"}}); p.status != http.StatusForbidden {
			t.Errorf("%s without a token: %d", path, p.status)
		}
	}

	q := &link.QR{UserID: ann.ID, Name: "menu", Type: "text", Data: []byte(`"Menu"`), Content: "Menu",
		Foreground: "rgb(0,0,0)", Background: "rgb(255,255,255)"}
	if err := e.store.CreateQR(context.Background(), q, func(q *link.QR) { q.Code = "abcdEFGH" }); err != nil {
		t.Fatal(err)
	}
	img := c.get(fmt.Sprintf("/qr/%d/image.png?size=500&download=1", q.ID))
	if dec, err := png.Decode(strings.NewReader(img.body)); err != nil || dec.Bounds().Dx() != 500 ||
		img.header.Get("Content-Disposition") != fmt.Sprintf(`attachment; filename="qr-%d.png"`, q.ID) {
		t.Errorf("png: %v %v", err, img.header)
	}
	svg := c.get(fmt.Sprintf("/qr/%d/image.svg", q.ID))
	if svg.header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(svg.body, "<svg") {
		t.Errorf("svg: %q %.60s", svg.header.Get("Content-Type"), svg.body)
	}
	bc := e.client()
	bc.signIn("bob")
	_ = bob
	for _, path := range []string{fmt.Sprintf("/qr/%d/image.png", q.ID), "/qr/99999/image.png", fmt.Sprintf("/qr/%d/image.gif", q.ID), "/qr/x/image.png"} {
		if p := bc.get(path); p.status != http.StatusNotFound {
			t.Errorf("bob gets %s: %d", path, p.status)
		}
	}
	if p := c.get(fmt.Sprintf("/qr/%d/image.png?size=5", q.ID)); p.status != http.StatusBadRequest {
		t.Errorf("size 5: %d", p.status)
	}

	// Delete: another user's id is the 404 page, for the page and the post.
	del := fmt.Sprintf("/qr/%d/delete", q.ID)
	if p := bc.get(del); p.status != http.StatusNotFound || strings.Contains(p.body, "menu") {
		t.Errorf("bob's delete page: %d", p.status)
	}
	if p := bc.post(del, url.Values{"csrf": {bc.token("/qr")}}); p.status != http.StatusNotFound {
		t.Errorf("bob's delete: %d", p.status)
	}
	if p := c.post(del, url.Values{}); p.status != http.StatusForbidden {
		t.Errorf("delete without a token: %d", p.status)
	}
	if p := c.get(del); p.status != http.StatusOK || !strings.Contains(p.body, "menu") {
		t.Errorf("delete page: %d", p.status)
	}
	if p := c.post(del, url.Values{"csrf": {tok}}); p.status != http.StatusSeeOther {
		t.Errorf("delete: %d", p.status)
	}
	if _, err := e.store.QRByID(context.Background(), ann.ID, q.ID); err == nil {
		t.Error("the code is still there")
	}
}

var scansRE = regexp.MustCompile(`class="num stat scans" data-label="Scans">([^<]+)<`)

// Scans come from ClickHouse; "—" while it cannot be read, never 0.
func TestQRScans(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	q := &link.QR{UserID: ann.ID, Name: `<img src=x onerror=alert(1)>`, Type: "text", Data: []byte(`"x"`), Content: "<script>alert(1)</script>",
		Foreground: "rgb(0,0,0)", Background: "rgb(255,255,255)"}
	if err := e.store.CreateQR(context.Background(), q, func(q *link.QR) { q.Code = "scan0001" }); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixNano()
	var rows []click.Row
	for i := range uint64(3) {
		rows = append(rows, click.Row{ClickID: uint64(now) + i, UnixNano: now, Kind: click.KindQR, Class: click.ClassHuman,
			QRID: uint64(q.ID), OwnerID: uint64(ann.ID), Visitor: i, Country: "DE"})
	}
	insertClicks(t, e, rows)
	c := e.client()
	c.signIn("ann")
	p := c.get("/qr")
	if m := scansRE.FindStringSubmatch(p.body); m == nil || m[1] != "3" {
		t.Fatalf("scans: %v", m)
	}
	if strings.Contains(p.body, "<img src=x") || strings.Contains(p.body, "<script>alert") {
		t.Fatal("markup in a QR code's name or content is not inert")
	}
	e.statsDown()
	p = c.get("/qr")
	if m := scansRE.FindStringSubmatch(p.body); m == nil || m[1] != "—" || !strings.Contains(p.body, `id="stats-down"`) {
		t.Fatalf("scans while ClickHouse is down: %v", m)
	}
}

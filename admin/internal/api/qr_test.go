package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"

	"kurz/admin/internal/safefetch"
	"kurz/shared/link"
	"kurz/shared/pgstore/pgtest"
	"kurz/shared/qrcode"
)

var (
	qrImageLinkRe = regexp.MustCompile(`^http://sho\.rt/qr/[A-Za-z0-9]{8}$`)
	qrDateRe      = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`)
	// qrBadPathIDs must all be the same 404 as an unknown id.
	qrBadPathIDs = []string{"abc", "0", "-1", "+1", "1.5", "1e3", " 1", "99999999999999999999", "424242"}
)

// qrFixture reads a file of testdata/.
func qrFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// qrDataURI wraps bytes as a data: URI of mime type mt.
func qrDataURI(mt string, b []byte) string {
	return "data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(b)
}

// addQRCode posts body to /api/qr/add, checks the exact success shape and
// returns the id and the image link.
func (e *testEnv) addQRCode(t *testing.T, key string, body map[string]any) (int64, string) {
	t.Helper()
	r := e.do("POST", "/api/qr/add", key, body).wantStatus(t, http.StatusOK)
	wantKeys(t, r.Body, map[string]string{"error": "number", "id": "number", "link": "string"})
	if len(r.Body) != 3 || r.Body["error"] != float64(0) {
		t.Fatalf("add response must be exactly {error:0,id,link}, got %s", r.Raw)
	}
	imgURL := r.Body["link"].(string)
	if !qrImageLinkRe.MatchString(imgURL) {
		t.Fatalf("link %q is not {base}/qr/{8 base62}", imgURL)
	}
	return int64(r.Body["id"].(float64)), imgURL
}

// qrStoredRow is a qr_codes row as the edge reads it.
type qrStoredRow struct {
	code, name, typ, data, content, target, bg, fg string
	logo                                           []byte
}

func (e *testEnv) qrStored(t *testing.T, id int64) qrStoredRow {
	t.Helper()
	var q qrStoredRow
	err := pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT code, name, type, data::text, content, target_url,
		background, foreground, logo FROM qr_codes WHERE id = $1`, id).
		Scan(&q.code, &q.name, &q.typ, &q.data, &q.content, &q.target, &q.bg, &q.fg, &q.logo)
	if err != nil {
		t.Fatalf("load qr %d: %v", id, err)
	}
	return q
}

func (e *testEnv) qrCount(t *testing.T) int {
	t.Helper()
	var n int
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT count(*) FROM qr_codes`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// scanStoredQR renders a stored row the way the edge does and reads it back
// with a QR decoder: what a phone's scanner would see.
func scanStoredQR(t *testing.T, q qrStoredRow) string {
	t.Helper()
	fg, err := qrcode.ParseRGB(q.fg)
	if err != nil {
		t.Fatalf("stored foreground %q: %v", q.fg, err)
	}
	bg, err := qrcode.ParseRGB(q.bg)
	if err != nil {
		t.Fatalf("stored background %q: %v", q.bg, err)
	}
	opt := qrcode.Options{Size: 800, Foreground: fg, Background: bg}
	if q.logo != nil {
		if opt.Logo = qrcode.NewLogo(q.logo).Image(); opt.Logo == nil {
			t.Fatalf("stored logo (%d bytes) does not load", len(q.logo))
		}
	}
	b, err := qrcode.Render(q.content, opt)
	if err != nil {
		t.Fatalf("render stored content: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return decodeQRImage(t, img)
}

func decodeQRImage(t *testing.T, img image.Image) string {
	t.Helper()
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	hints := map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_TRY_HARDER: true}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, hints)
	if err != nil {
		t.Fatalf("decode QR: %v", err)
	}
	return res.GetText()
}

func TestQRAddAndGetShape(t *testing.T) {
	e := newEnv(t)
	alice, key := e.user("alice")
	id, imgLink := e.addQRCode(t, key, map[string]any{"type": "text", "data": "hello kurz"})

	r := e.do("GET", fmt.Sprintf("/api/qr/%d", id), key, nil).wantStatus(t, http.StatusOK)
	if len(r.Body) != 3 || r.Body["error"] != float64(0) {
		t.Fatalf("single-QR response must be exactly {error:0,details,data}, got %s", r.Raw)
	}
	details, _ := r.Body["details"].(map[string]any)
	detailTypes := map[string]string{
		"id": "number", "link": "string", "scans": "number", "name": "string", "date": "string",
		"type": "string", "data": "string", "content": "string", "target": "string",
		"background": "string", "foreground": "string", "has_logo": "bool", "channel": "number",
	}
	wantKeys(t, details, detailTypes)
	if len(details) != len(detailTypes) {
		t.Errorf("details has %d keys, want %d: %v", len(details), len(detailTypes), details)
	}
	want := map[string]any{
		"id": float64(id), "link": imgLink, "scans": float64(0), "name": "QR text", "type": "text",
		"data": "hello kurz", "content": "hello kurz", "target": "", "background": "rgb(255,255,255)",
		"foreground": "rgb(0,0,0)", "has_logo": false, "channel": float64(0),
	}
	for k, v := range want {
		if details[k] != v {
			t.Errorf("details.%s = %#v, want %#v", k, details[k], v)
		}
	}
	if !qrDateRe.MatchString(details["date"].(string)) {
		t.Errorf("date %q is not YYYY-MM-DD HH:MM:SS", details["date"])
	}

	data := r.data(t)
	dataTypes := map[string]string{
		"clicks": "number", "uniqueClicks": "number", "topCountries": "object", "topReferrers": "object",
		"topBrowsers": "object", "topOs": "object", "socialCount": "object",
	}
	wantKeys(t, data, dataTypes)
	if len(data) != len(dataTypes) {
		t.Errorf("data has %d keys, want %d: %v", len(data), len(dataTypes), data)
	}
	for _, k := range []string{"topCountries", "topReferrers", "topBrowsers", "topOs"} {
		if m, _ := data[k].(map[string]any); len(m) != 0 {
			t.Errorf("data.%s = %v, want {}", k, m)
		}
	}
	social, _ := data["socialCount"].(map[string]any)
	wantKeys(t, social, map[string]string{"socialnetwork": "number", "microblog": "number", "photosharing": "number"})
	if len(social) != 3 {
		t.Errorf("socialCount = %v, want exactly socialnetwork, microblog, photosharing", social)
	}

	// channel comes from the row; scans from ClickHouse (none here: no
	// stats service, see TestQRStatsData).
	var ch int64
	if err := pgtest.Pool(e.store).QueryRow(context.Background(),
		`INSERT INTO channels (user_id, name) VALUES ($1, 'print') RETURNING id`, alice).Scan(&ch); err != nil {
		t.Fatal(err)
	}
	if _, err := pgtest.Pool(e.store).Exec(context.Background(),
		`UPDATE qr_codes SET channel_id = $2 WHERE id = $1`, id, ch); err != nil {
		t.Fatal(err)
	}
	details = e.do("GET", fmt.Sprintf("/api/qr/%d", id), key, nil).wantStatus(t, http.StatusOK).Body["details"].(map[string]any)
	if details["scans"] != float64(0) || details["channel"] != float64(ch) {
		t.Errorf("scans %v channel %v, want 0 and %d", details["scans"], details["channel"], ch)
	}
	rows := e.do("GET", "/api/qr", key, nil).list(t, "qrs")
	if len(rows) != 1 || rows[0].(map[string]any)["scans"] != float64(0) {
		t.Errorf("list rows %v, want one with scans 0", rows)
	}
}

func TestQRContentPerType(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	png := qrFixture(t, "qr_logo.png")
	jpg := qrFixture(t, "qr_logo.jpg")
	tests := []struct {
		name    string
		body    map[string]any
		content string // "" for link: the code's own tracking URL
		target  string
	}{
		{"text", map[string]any{"type": "text", "data": "Hello, kurz!\nSecond line"}, "Hello, kurz!\nSecond line", ""},
		{"link", map[string]any{"type": "link", "data": "https://example.com/spring?utm=qr"}, "", "https://example.com/spring?utm=qr"},
		{"link to own short link", map[string]any{"type": "LINK", "data": "http://sho.rt/abc"}, "", "http://sho.rt/abc"},
		{"email string", map[string]any{"type": "email", "data": "erika@example.com"}, "mailto:erika@example.com", ""},
		{"email object", map[string]any{"type": "email", "data": map[string]any{"email": "erika@example.com", "subject": "Hi there"}},
			"mailto:erika@example.com?subject=Hi%20there", ""},
		{"phone", map[string]any{"type": "phone", "data": "+49 30 123456"}, "tel:+4930123456", ""},
		{"sms", map[string]any{"type": "sms", "data": map[string]any{"phone": "+4930123456", "message": "hello"}},
			"SMSTO:+4930123456:hello", ""},
		{"wifi", map[string]any{"type": "wifi", "data": map[string]any{"ssid": "Home", "password": "secret123", "encryption": "WPA"}},
			"WIFI:T:WPA;S:Home;P:secret123;;", ""},
		{"vcard", map[string]any{"type": "vcard", "data": map[string]any{"name": "Erika Muster", "org": "Kurz GmbH",
			"phone": "+4930123456", "email": "erika@example.com"}},
			"BEGIN:VCARD\r\nVERSION:3.0\r\nN:Muster;Erika;;;\r\nFN:Erika Muster\r\nORG:Kurz GmbH\r\nTEL:+4930123456\r\n" +
				"EMAIL;TYPE=INTERNET:erika@example.com\r\nEND:VCARD\r\n", ""},
		{"colours and png logo", map[string]any{"type": "text", "data": "branded", "foreground": "rgb(10, 40, 90)",
			"background": "RGB(250,245,230)", "logo": qrDataURI("image/png", png), "name": " Poster "}, "branded", ""},
		{"link with jpeg logo", map[string]any{"type": "link", "data": "https://example.com/menu",
			"logo": qrDataURI("image/jpeg", jpg)}, "", "https://example.com/menu"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, imgLink := e.addQRCode(t, key, tt.body)
			q := e.qrStored(t, id)
			if imgLink != "http://sho.rt/qr/"+q.code {
				t.Errorf("link %q does not name stored code %q", imgLink, q.code)
			}
			want := tt.content
			if want == "" {
				want = "http://sho.rt/q/" + q.code
			}
			if q.content != want || q.target != tt.target {
				t.Errorf("stored content %q target %q, want %q and %q", q.content, q.target, want, tt.target)
			}
			if got := scanStoredQR(t, q); got != want {
				t.Errorf("scanned %q, want %q", got, want)
			}
		})
	}

	// Stored forms: type lower-cased, data as given, colours canonical,
	// logo in its stored form (qrcode.PrepareLogo of what was sent), name
	// trimmed.
	r := e.do("GET", "/api/qr?limit=100", key, nil).list(t, "qrs")
	if len(r) != len(tests) {
		t.Fatalf("%d codes listed, want %d", len(r), len(tests))
	}
	byName := map[string]int64{}
	for _, row := range r {
		m := row.(map[string]any)
		byName[m["name"].(string)] = int64(m["id"].(float64))
	}
	poster := e.qrStored(t, byName["Poster"])
	if poster.fg != "rgb(10,40,90)" || poster.bg != "rgb(250,245,230)" || !bytes.Equal(poster.logo, storedLogo(t, png)) {
		t.Errorf("poster stored fg %q bg %q logo %d bytes", poster.fg, poster.bg, len(poster.logo))
	}
	if _, ok := byName["QR link"]; !ok {
		t.Errorf("default names missing: %v", byName)
	}
	det := e.do("GET", fmt.Sprintf("/api/qr/%d", byName["Poster"]), key, nil).Body["details"].(map[string]any)
	if det["has_logo"] != true {
		t.Errorf("has_logo = %v, want true", det["has_logo"])
	}
}

func TestQRAddValidation(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	png := qrFixture(t, "qr_logo.png")
	var hits atomic.Int32
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write(png)
	}))
	t.Cleanup(local.Close)

	text := func(extra map[string]any) map[string]any {
		b := map[string]any{"type": "text", "data": "hi"}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	const source = "logo: must be an http(s) URL or a data:image/png|jpeg;base64 URI"
	tests := []struct {
		name string
		body any
		want string
	}{
		{"type missing", map[string]any{"data": "x"}, "type: required"},
		{"type unknown", map[string]any{"type": "pdf", "data": "x"}, "type: must be one of text, vcard, link, email, phone, sms, wifi"},
		{"type not a string", map[string]any{"type": 5, "data": "x"}, "type: must be a string"},
		{"data missing", map[string]any{"type": "text"}, "data: required"},
		{"data null", map[string]any{"type": "text", "data": nil}, "data: required"},
		{"text as object", map[string]any{"type": "text", "data": map[string]any{"a": 1}}, "data: must be a string"},
		{"text too long", map[string]any{"type": "text", "data": strings.Repeat("a", 2001)}, "data: at most 2000 characters"},
		{"link javascript", map[string]any{"type": "link", "data": "javascript:alert(1)"}, "data: must be an absolute http or https URL"},
		{"link credentials", map[string]any{"type": "link", "data": "https://bank.example@evil.example/"}, "data: must not contain a user name or password"},
		{"link bad host", map[string]any{"type": "link", "data": "https://exa!mple.com/"}, "data: must have a valid host"},
		{"email bad", map[string]any{"type": "email", "data": "not-an-address"}, "data: must be an email address"},
		{"phone letters", map[string]any{"type": "phone", "data": "call me"}, "data: must be a phone number"},
		{"sms as string", map[string]any{"type": "sms", "data": "123"}, "data: must be an object with keys phone, message"},
		{"wifi as array", map[string]any{"type": "wifi", "data": []string{"Home"}}, "data: must be an object"},
		{"wifi no ssid", map[string]any{"type": "wifi", "data": map[string]any{"password": "secret123"}}, "data.ssid: required"},
		{"wifi unknown key", map[string]any{"type": "wifi", "data": map[string]any{"ssid": "a", "pass": "b"}}, "data.pass: unknown field"},
		{"vcard no name", map[string]any{"type": "vcard", "data": map[string]any{"org": "Kurz"}}, "data.name: required"},
		{"name too long", text(map[string]any{"name": strings.Repeat("n", 101)}), "name: must be at most 100 characters"},
		{"name control", text(map[string]any{"name": "a\u0007b"}), "name: must not contain control characters"},
		{"background word", text(map[string]any{"background": "red"}), "background: must be rgb(r,g,b)"},
		{"foreground out of range", text(map[string]any{"foreground": "rgb(256,0,0)"}), "foreground: must be rgb(r,g,b)"},
		{"foreground low contrast", text(map[string]any{"foreground": "rgb(200,200,200)"}), "foreground: contrast with background must be at least 3:1"},
		{"inverted", text(map[string]any{"foreground": "rgb(255,255,255)", "background": "rgb(0,0,0)"}), "foreground: must be darker than background"},
		{"background too dark", text(map[string]any{"background": "rgb(40,40,40)"}), "background: does not work with the current foreground rgb(0,0,0)"},
		{"logo gif", text(map[string]any{"logo": "data:image/gif;base64,R0lGODlh"}), "logo: must be a data:image/png;base64 or data:image/jpeg;base64 URI"},
		{"logo bad base64", text(map[string]any{"logo": "data:image/png;base64,!!!!"}), "logo: invalid base64 data"},
		{"logo not an image", text(map[string]any{"logo": qrDataURI("image/png", []byte("<svg onload=alert(1)>"))}), "logo: must be a PNG or JPEG image"},
		{"logo too large", text(map[string]any{"logo": qrDataURI("image/png", append(png, make([]byte, 1<<20)...))}), "logo: too large"},
		{"logo path", text(map[string]any{"logo": "/etc/passwd"}), source},
		{"logo relative path", text(map[string]any{"logo": "../../etc/passwd"}), source},
		{"logo file URL", text(map[string]any{"logo": "file:///etc/passwd"}), source},
		{"logo ftp", text(map[string]any{"logo": "ftp://example.com/logo.png"}), source},
		{"logo no scheme", text(map[string]any{"logo": "example.com/logo.png"}), source},
		{"logo loopback", text(map[string]any{"logo": local.URL + "/logo.png"}), "logo: address not allowed"},
		{"logo localhost name", text(map[string]any{"logo": strings.Replace(local.URL, "127.0.0.1", "localhost", 1) + "/logo.png"}), "logo: address not allowed"},
		{"logo metadata", text(map[string]any{"logo": "http://169.254.169.254/latest/meta-data/"}), "logo: address not allowed"},
		{"data too long with logo", map[string]any{"type": "text", "data": strings.Repeat("a", 1300), "logo": qrDataURI("image/png", png)},
			"logo: data too long for a QR code with a logo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.do("POST", "/api/qr/add", key, tt.body).wantStatus(t, http.StatusBadRequest).wantMessage(t, tt.want)
		})
	}
	// Escapes Go's decoder takes but PostgreSQL's jsonb refuses: a NUL is
	// a 400 naming the field, never a 500.
	for raw, msg := range map[string]string{
		`{"type":"text","data":"a\u0000b"}`:            "data: must not contain control characters",
		`{"type":"wifi","data":{"ssid":"home\u0000"}}`: "data.ssid: must not contain control characters",
	} {
		e.do("POST", "/api/qr/add", key, raw).wantStatus(t, http.StatusBadRequest).wantMessage(t, msg)
	}
	if n := e.qrCount(t); n != 0 {
		t.Errorf("%d qr codes written by refused requests", n)
	}
	// A lone surrogate escape decodes to U+FFFD, as everywhere in the API,
	// and is stored so (jsonb refuses the escape itself).
	r := e.do("POST", "/api/qr/add", key, `{"type":"text","data":"\ud800 hi"}`).wantStatus(t, http.StatusOK)
	if q := e.qrStored(t, wantID(t, r)); q.content != "\ufffd hi" {
		t.Errorf("stored content %q, want U+FFFD and the rest", q.content)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback server saw %d requests; a refused address must never see a packet", n)
	}
}

// TestQRLogoURL fetches logos from a local server the test lets through
// the address policy.
func TestQRLogoURL(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	e.srv.logoFetch = safefetch.Options{AllowAddr: func(netip.Addr) bool { return true }}
	png := qrFixture(t, "qr_logo.png")
	mux := http.NewServeMux()
	mux.HandleFunc("/logo.png", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(png) })
	mux.HandleFunc("/lying.png", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("<html>not an image</html>"))
	})
	mux.HandleFunc("/big.png", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(append(append([]byte{}, png...), make([]byte, 1<<20)...))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	id, _ := e.addQRCode(t, key, map[string]any{"type": "link", "data": "https://example.com/", "logo": srv.URL + "/logo.png"})
	q := e.qrStored(t, id)
	if !bytes.Equal(q.logo, storedLogo(t, png)) {
		t.Fatalf("stored logo is %d bytes, want the fetched logo's stored form", len(q.logo))
	}
	if got, want := scanStoredQR(t, q), "http://sho.rt/q/"+q.code; got != want {
		t.Errorf("scanned %q, want %q", got, want)
	}

	for _, tt := range []struct{ path, want string }{
		{"/lying.png", "logo: must be a PNG or JPEG image"},
		{"/big.png", "logo: larger than 1 MiB"},
		{"/missing.png", "logo: could not be fetched"},
	} {
		r := e.do("POST", "/api/qr/add", key, map[string]any{"type": "text", "data": "x", "logo": srv.URL + tt.path})
		r.wantStatus(t, http.StatusBadRequest).wantMessage(t, tt.want)
		if strings.Contains(string(r.Raw), "127.0.0.1") {
			t.Errorf("%s: error leaks fetch details: %s", tt.path, r.Raw)
		}
	}
	if n := e.qrCount(t); n != 1 {
		t.Errorf("%d codes stored, want 1", n)
	}
}

func TestQRUpdate(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	png := qrFixture(t, "qr_logo.png")
	id, imgLink := e.addQRCode(t, key, map[string]any{"type": "link", "data": "https://example.com/a",
		"foreground": "rgb(0,0,80)", "background": "rgb(255,255,240)", "logo": qrDataURI("image/png", png), "name": "Flyer"})
	path := fmt.Sprintf("/api/qr/%d/update", id)
	before := e.qrStored(t, id)

	update := func(body any) response { return e.do("PUT", path, key, body) }
	wantMsg := func(r response) {
		t.Helper()
		r.wantStatus(t, http.StatusOK)
		if len(r.Body) != 2 || r.Body["error"] != float64(0) || r.Body["message"] != "qr code updated" {
			t.Fatalf("update response %s, want {error:0,message}", r.Raw)
		}
	}

	wantMsg(update(map[string]any{"name": "Flyer 2"}))
	q := e.qrStored(t, id)
	want := before
	want.name = "Flyer 2"
	if fmt.Sprint(q) != fmt.Sprint(want) {
		t.Fatalf("name-only update changed more:\n got %+v\nwant %+v", q, want)
	}

	wantMsg(update(map[string]any{"data": "https://example.com/b"}))
	q = e.qrStored(t, id)
	if q.target != "https://example.com/b" || q.content != before.content || q.code != before.code || q.data != `"https://example.com/b"` {
		t.Errorf("data update: target %q content %q code %q data %s", q.target, q.content, q.code, q.data)
	}

	wantMsg(update(map[string]any{"foreground": "rgb(60,0,0)"}))
	q = e.qrStored(t, id)
	if q.fg != "rgb(60,0,0)" || q.bg != "rgb(255,255,240)" || !bytes.Equal(q.logo, storedLogo(t, png)) {
		t.Errorf("foreground update: fg %q bg %q logo %d bytes", q.fg, q.bg, len(q.logo))
	}

	wantMsg(update(map[string]any{"logo": ""}))
	if q = e.qrStored(t, id); q.logo != nil {
		t.Errorf("logo \"\" must remove the logo, %d bytes left", len(q.logo))
	}
	wantMsg(update(map[string]any{"background": ""})) // "" = default white
	if q = e.qrStored(t, id); q.bg != "rgb(255,255,255)" {
		t.Errorf("background \"\" = %q, want the default", q.bg)
	}
	wantMsg(update(map[string]any{}))
	settled := e.qrStored(t, id)

	for _, tt := range []struct {
		name string
		body any
		want string
	}{
		{"type", map[string]any{"type": "text", "name": "x"}, "type: cannot be changed; create a new QR code"},
		{"data for stored type", map[string]any{"data": "mailto:x@example.com", "name": "x"}, "data: must be an absolute http or https URL"},
		{"name empty", map[string]any{"name": "  "}, "name: must not be empty"},
		{"background clashes", map[string]any{"background": "rgb(90,0,0)", "name": "x"}, "background: does not work with the current foreground rgb(60,0,0)"},
		{"foreground clashes", map[string]any{"foreground": "rgb(240,240,240)", "name": "x"}, "foreground:"},
		{"colour syntax", map[string]any{"foreground": "blue", "name": "x"}, "foreground: must be rgb(r,g,b)"},
		{"logo path", map[string]any{"logo": "/etc/passwd", "name": "x"}, "logo: must be an http(s) URL"},
		{"not JSON", "{", "malformed JSON"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			update(tt.body).wantStatus(t, http.StatusBadRequest).wantMessage(t, tt.want)
			if q := e.qrStored(t, id); fmt.Sprint(q) != fmt.Sprint(settled) {
				t.Errorf("refused update wrote:\n got %+v\nwant %+v", q, settled)
			}
		})
	}

	// A text code re-validated against its own type, and the logo limit
	// checked against the stored logo.
	tid, _ := e.addQRCode(t, key, map[string]any{"type": "text", "data": "short", "logo": qrDataURI("image/png", png)})
	tpath := fmt.Sprintf("/api/qr/%d/update", tid)
	e.do("PUT", tpath, key, map[string]any{"data": strings.Repeat("a", 1300)}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "logo: data too long for a QR code with a logo")
	e.do("PUT", tpath, key, map[string]any{"data": map[string]any{"x": 1}}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "data: must be a string")
	wantMsg(e.do("PUT", tpath, key, map[string]any{"data": strings.Repeat("a", 1300), "logo": ""}))
	tq := e.qrStored(t, tid)
	if tq.content != strings.Repeat("a", 1300) || tq.logo != nil {
		t.Errorf("long text without logo: content %d chars, logo %d bytes", len(tq.content), len(tq.logo))
	}
	if got := scanStoredQR(t, tq); got != tq.content {
		t.Errorf("scanned %d chars, want the stored %d", len(got), len(tq.content))
	}

	// The image URL never changes.
	det := e.do("GET", fmt.Sprintf("/api/qr/%d", id), key, nil).wantStatus(t, http.StatusOK).Body["details"].(map[string]any)
	if det["link"] != imgLink || det["name"] != "Flyer 2" || det["has_logo"] != false || det["target"] != "https://example.com/b" {
		t.Errorf("details after updates: %v", det)
	}
}

func TestQRIsolationAndDelete(t *testing.T) {
	e := newEnv(t)
	_, alice := e.user("alice")
	_, bob := e.user("bob")
	id, _ := e.addQRCode(t, alice, map[string]any{"type": "text", "data": "alice's", "name": "A"})
	before := e.qrStored(t, id)

	for _, tt := range []struct{ method, path string }{
		{"GET", "/api/qr/%d"}, {"PUT", "/api/qr/%d/update"}, {"DELETE", "/api/qr/%d/delete"},
	} {
		var body any
		if tt.method == "PUT" {
			body = map[string]any{"name": "stolen"}
		}
		e.do(tt.method, fmt.Sprintf(tt.path, id), bob, body).wantStatus(t, http.StatusNotFound).wantMessage(t, "qr code not found")
		for _, bad := range qrBadPathIDs {
			p := strings.Replace(tt.path, "%d", bad, 1)
			e.do(tt.method, p, alice, body).wantStatus(t, http.StatusNotFound).wantMessage(t, "qr code not found")
		}
	}
	if got := e.do("GET", "/api/qr", bob, nil).list(t, "qrs"); len(got) != 0 {
		t.Errorf("bob lists %v", got)
	}
	if q := e.qrStored(t, id); fmt.Sprint(q) != fmt.Sprint(before) {
		t.Fatalf("bob's requests changed alice's code: %+v", q)
	}

	r := e.do("DELETE", fmt.Sprintf("/api/qr/%d/delete", id), alice, nil).wantStatus(t, http.StatusOK)
	if len(r.Body) != 2 || r.Body["error"] != float64(0) || r.Body["message"] != "qr code deleted" {
		t.Errorf("delete response %s", r.Raw)
	}
	e.do("DELETE", fmt.Sprintf("/api/qr/%d/delete", id), alice, nil).wantStatus(t, http.StatusNotFound)
	e.do("GET", fmt.Sprintf("/api/qr/%d", id), alice, nil).wantStatus(t, http.StatusNotFound)
	if n := e.qrCount(t); n != 0 {
		t.Errorf("%d rows after delete", n)
	}
}

func TestQRListPaging(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	_, other := e.user("bob")
	e.addQRCode(t, other, map[string]any{"type": "text", "data": "bob's"})
	var ids []int64
	for i := range 3 {
		id, _ := e.addQRCode(t, key, map[string]any{"type": "text", "data": fmt.Sprint("n", i), "name": fmt.Sprint("Q", i)})
		ids = append(ids, id)
	}
	for _, tt := range []struct {
		query             string
		wantIDs           []int64
		next, max, result float64
	}{
		{"?limit=2", []int64{ids[2], ids[1]}, 2, 2, 3},
		{"?limit=2&page=2", []int64{ids[0]}, 0, 2, 3},
		{"?limit=2&page=3", nil, 0, 2, 3},
		{"", []int64{ids[2], ids[1], ids[0]}, 0, 1, 3},
	} {
		r := e.do("GET", "/api/qr"+tt.query, key, nil)
		rows := r.list(t, "qrs")
		d := r.data(t)
		if d["nextpage"] != tt.next || d["maxpage"] != tt.max || d["result"] != tt.result {
			t.Errorf("%s: envelope %v", tt.query, d)
		}
		if len(rows) != len(tt.wantIDs) {
			t.Fatalf("%s: %d rows, want %d", tt.query, len(rows), len(tt.wantIDs))
		}
		for i, row := range rows {
			m := row.(map[string]any)
			rowTypes := map[string]string{"id": "number", "link": "string", "scans": "number", "name": "string", "date": "string"}
			wantKeys(t, m, rowTypes)
			if len(m) != len(rowTypes) {
				t.Errorf("row has keys %v, want exactly id, link, scans, name, date", m)
			}
			if m["id"] != float64(tt.wantIDs[i]) {
				t.Errorf("%s row %d: id %v, want %d (newest first)", tt.query, i, m["id"], tt.wantIDs[i])
			}
			if !qrImageLinkRe.MatchString(m["link"].(string)) || !qrDateRe.MatchString(m["date"].(string)) {
				t.Errorf("row link %q date %q", m["link"], m["date"])
			}
		}
	}
	e.do("GET", "/api/qr?limit=0", key, nil).wantStatus(t, http.StatusBadRequest).wantMessage(t, "limit:")
	e.do("POST", "/api/qr", key, nil).wantStatus(t, http.StatusMethodNotAllowed)
}

// TestQRCodeRetry drives the store's retry on a taken code: the unique
// index decides, the transaction stays usable, and giving up writes nothing.
func TestQRCodeRetry(t *testing.T) {
	e := newEnv(t)
	alice, _ := e.user("alice")
	ctx := context.Background()
	newQR := func() *link.QR {
		return &link.QR{UserID: alice, Name: "n", Type: "text", Data: []byte(`"x"`), Content: "x",
			Background: "rgb(255,255,255)", Foreground: "rgb(0,0,0)"}
	}
	fixed := func(q *link.QR) { q.Code = "TakenCod" }
	if err := e.store.CreateQR(ctx, newQR(), fixed); err != nil {
		t.Fatal(err)
	}
	codes := []string{"TakenCod", "TakenCod", "FreshCod"}
	attempts := 0
	q := newQR()
	err := e.store.CreateQR(ctx, q, func(q *link.QR) { q.Code = codes[attempts]; attempts++ })
	if err != nil || q.Code != "FreshCod" || attempts != 3 || q.ID == 0 {
		t.Fatalf("retry: err %v code %q after %d attempts, id %d", err, q.Code, attempts, q.ID)
	}
	if err := e.store.CreateQR(ctx, newQR(), fixed); err == nil || !strings.Contains(err.Error(), "no free qr code") {
		t.Fatalf("always-taken code: err %v", err)
	}
	if n := e.qrCount(t); n != 2 {
		t.Errorf("%d rows, want 2", n)
	}
}

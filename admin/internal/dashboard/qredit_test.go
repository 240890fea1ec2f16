package dashboard

import (
	"context"
	"encoding/base64"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"kurz/shared/click"
	"kurz/shared/link"
)

// Editing QR codes through api.Server.UpdateQR (the code and type stay,
// the content follows the fields), deleting through api.Server.DeleteQR,
// and a code's scan statistics.

// onlyQR is the user's one QR code.
func onlyQR(t *testing.T, e *env, userID int64) link.QR {
	t.Helper()
	qrs, _, err := e.store.ListQRs(context.Background(), userID, 10, 0)
	if err != nil || len(qrs) != 1 {
		t.Fatalf("qr codes: %+v, %v", qrs, err)
	}
	return qrs[0]
}

func TestQREdit(t *testing.T) {
	for _, tc := range []struct {
		typ          string
		create, edit url.Values
		shown        []string // values the edit form shows of create
		want         string   // in the stored content after the edit
	}{
		{"link", url.Values{"link_data": {"https://example.com/menu"}}, url.Values{"link_data": {"https://example.com/lunch"}},
			[]string{`value="https://example.com/menu"`}, "http://sho.rt/q/"},
		{"text", url.Values{"text_data": {"Table 7"}}, url.Values{"text_data": {"Table 8 <b>"}}, []string{">Table 7</textarea>"}, "Table 8 <b>"},
		{"vcard", url.Values{"vcard_name": {"Maria Muster"}, "vcard_email": {"maria@example.com"}},
			url.Values{"vcard_name": {"Maria Muster"}, "vcard_email": {"m@example.com"}, "vcard_org": {"Example"}},
			[]string{`value="Maria Muster"`, `value="maria@example.com"`}, "ORG:Example"},
		{"wifi", url.Values{"wifi_ssid": {"Cafe"}, "wifi_password": {"secret123"}, "wifi_encryption": {"WPA"}, "wifi_hidden": {"1"}},
			url.Values{"wifi_ssid": {"Cafe 2"}, "wifi_password": {""}, "wifi_encryption": {"nopass"}},
			[]string{`value="Cafe"`, `value="secret123"`, `value="WPA" selected`, `name="wifi_hidden" value="1" checked`}, "WIFI:T:nopass;S:Cafe 2;"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			e := newEnv(t)
			ann := e.user("ann")
			c := e.client()
			c.signIn("ann")
			tok := c.token("/qr/new")
			f := url.Values{"csrf": {tok}, "do": {"save"}, "type": {tc.typ}, "name": {"first"}, "foreground": {"#1a2b3c"}, "background": {"#ffffff"}}
			for k, v := range tc.create {
				f[k] = v
			}
			if p := c.post("/qr/new", f); p.status != http.StatusSeeOther {
				t.Fatalf("create: %d %s", p.status, errorsOf(p.body))
			}
			before := onlyQR(t, e, ann.ID)
			edit := fmt.Sprintf("/qr/%d/edit", before.ID)
			form := c.get(edit)
			for _, s := range append(tc.shown, `value="first"`, `value="#1a2b3c"`, `value="#ffffff"`, `id="t-`+tc.typ+`" checked disabled`) {
				if !strings.Contains(form.body, s) {
					t.Errorf("edit form lacks %s", s)
				}
			}
			if strings.Contains(form.body, `id="t-text"`) && tc.typ != "text" {
				t.Error("the edit form offers another type")
			}
			// A posted type is ignored: the stored one stays.
			f = url.Values{"csrf": {tok}, "do": {"save"}, "type": {"phone"}, "name": {" second "}, "foreground": {"#000080"}, "background": {"#fffff0"}}
			for k, v := range tc.edit {
				f[k] = v
			}
			if p := c.post(edit, f); p.status != http.StatusSeeOther {
				t.Fatalf("save: %d %s", p.status, errorsOf(p.body))
			}
			after := onlyQR(t, e, ann.ID)
			if after.Code != before.Code || after.Type != tc.typ || after.Name != "second" || after.Foreground != "rgb(0,0,128)" ||
				after.Background != "rgb(255,255,240)" || !strings.Contains(after.Content, tc.want) {
				t.Errorf("after the edit: %+v", after)
			}
			if tc.typ == "link" && (after.TargetURL != "https://example.com/lunch" || after.Content != before.Content) {
				t.Errorf("link code: target %q, content %q (was %q)", after.TargetURL, after.Content, before.Content)
			}
		})
	}
}

// Refusals on their fields, values kept and escaped, nothing written; the
// logo removed; another user's code 404 on every page and POST; CSRF.
func TestQREditErrorsAndOwnership(t *testing.T) {
	e := newEnv(t)
	ann, _ := e.user("ann"), e.user("bob")
	c := e.client()
	c.signIn("ann")
	tok := c.token("/qr/new")
	p := c.post("/qr/new", url.Values{"csrf": {tok}, "do": {"save"}, "type": {"wifi"}, "name": {"Cafe"}, "wifi_ssid": {"Cafe"},
		"wifi_encryption": {"WPA"}, "wifi_password": {"secret123"}, "foreground": {"#000000"}, "background": {"#ffffff"},
		"logo": {"data:image/png;base64," + base64.StdEncoding.EncodeToString(testPNG(t))}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("create: %d %s", p.status, errorsOf(p.body))
	}
	q := onlyQR(t, e, ann.ID)
	if !q.HasLogo {
		t.Fatal("no logo stored")
	}
	edit := fmt.Sprintf("/qr/%d/edit", q.ID)
	if !strings.Contains(c.get(edit).body, `name="logo_remove"`) {
		t.Fatal("no way to remove the logo")
	}
	xss := `"><script>alert(1)</script>`
	for _, tt := range []struct {
		name   string
		form   url.Values
		fields []string
	}{
		{"empty name", url.Values{"name": {""}, "wifi_ssid": {"Cafe"}, "wifi_encryption": {"nopass"}, "foreground": {"#000000"}, "background": {"#ffffff"}}, []string{"name"}},
		{"network name too long", url.Values{"name": {"Cafe"}, "wifi_ssid": {xss + strings.Repeat("x", 40)}, "wifi_encryption": {"nopass"}, "foreground": {"#000000"}, "background": {"#ffffff"}}, []string{"wifi_ssid"}},
		{"missing network", url.Values{"name": {"Cafe"}, "wifi_ssid": {""}, "wifi_encryption": {"nopass"}, "foreground": {"#000000"}, "background": {"#ffffff"}}, []string{"wifi_ssid"}},
		{"no contrast", url.Values{"name": {"Cafe"}, "wifi_ssid": {"Cafe"}, "wifi_encryption": {"nopass"}, "foreground": {"#eeeeee"}, "background": {"#ffffff"}}, []string{"foreground"}},
		{"bad logo", url.Values{"name": {"Cafe"}, "wifi_ssid": {"Cafe"}, "wifi_encryption": {"nopass"}, "foreground": {"#000000"}, "background": {"#ffffff"}, "logo": {"file:///etc/passwd"}}, []string{"logo"}},
	} {
		f := withCSRF(tt.form, tok)
		f.Set("do", "save")
		p := c.post(edit, f)
		if p.status != http.StatusBadRequest {
			t.Errorf("%s: status %d", tt.name, p.status)
		}
		for _, field := range tt.fields {
			if !strings.Contains(p.body, `id="f-`+field+`-error"`) {
				t.Errorf("%s: %s not marked: %s", tt.name, field, errorsOf(p.body))
			}
		}
		if strings.Contains(p.body, xss) {
			t.Errorf("%s: markup not escaped", tt.name)
		}
		if v := tt.form.Get("wifi_ssid"); v != "" && !strings.Contains(p.body, `value="`+html.EscapeString(v)+`"`) {
			t.Errorf("%s: the typed network name is not kept", tt.name)
		}
	}
	if got := onlyQR(t, e, ann.ID); got.Name != "Cafe" || got.Content != q.Content || !got.HasLogo {
		t.Fatalf("refused edits wrote %+v", got)
	}
	// Forged: nothing changes.
	save := url.Values{"do": {"save"}, "name": {"Renamed"}, "wifi_ssid": {"Cafe"}, "wifi_encryption": {"nopass"}, "foreground": {"#000000"},
		"background": {"#ffffff"}, "logo_remove": {"1"}}
	if p := c.post(edit, save); p.status != http.StatusForbidden {
		t.Errorf("no token: %d", p.status)
	}
	if p := c.do(http.MethodPost, edit, withCSRF(save, tok), map[string]string{"Sec-Fetch-Site": "cross-site"}); p.status != http.StatusForbidden {
		t.Errorf("cross-site: %d", p.status)
	}
	if got := onlyQR(t, e, ann.ID); got.Name != "Cafe" || !got.HasLogo {
		t.Fatalf("a forged edit wrote %+v", got)
	}

	b := e.client()
	b.signIn("bob")
	btok := b.token("/qr/new")
	for _, path := range []string{edit, fmt.Sprintf("/qr/%d/stats", q.ID), fmt.Sprintf("/qr/%d/stats.csv", q.ID), fmt.Sprintf("/qr/%d/delete", q.ID),
		"/qr/999999/edit", "/qr/x/stats"} {
		if p := b.get(path); p.status != http.StatusNotFound || strings.Contains(p.body, "Cafe") {
			t.Errorf("bob GET %s: %d", path, p.status)
		}
	}
	for _, path := range []string{edit, fmt.Sprintf("/qr/%d/delete", q.ID)} {
		if p := b.post(path, withCSRF(save, btok)); p.status != http.StatusNotFound {
			t.Errorf("bob POST %s: %d", path, p.status)
		}
	}
	if got := onlyQR(t, e, ann.ID); got.Name != "Cafe" || !got.HasLogo {
		t.Fatalf("bob changed %+v", got)
	}

	if p := c.post(edit, withCSRF(save, tok)); p.status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", p.status, errorsOf(p.body))
	}
	if got := onlyQR(t, e, ann.ID); got.Name != "Renamed" || got.HasLogo {
		t.Fatalf("after removing the logo: %+v", got)
	}
	if p := c.post(fmt.Sprintf("/qr/%d/delete", q.ID), url.Values{"csrf": {tok}}); p.status != http.StatusSeeOther {
		t.Fatalf("delete: %d", p.status)
	}
	if qrs, _, _ := e.store.ListQRs(context.Background(), ann.ID, 10, 0); len(qrs) != 0 {
		t.Fatalf("after delete: %+v", qrs)
	}
}

// A link code's scans on the statistics page (the QR reads, not the
// link's), its CSV; other types say why they have none; ClickHouse down.
func TestQRStatsPage(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	ctx := context.Background()
	mk := func(typ, content, target string) *link.QR {
		q := &link.QR{UserID: ann.ID, Name: `Menu <b>` + typ + `</b>`, Type: typ, Data: []byte(`"x"`), Content: content, TargetURL: target,
			Foreground: "rgb(0,0,0)", Background: "rgb(255,255,255)"}
		if err := e.store.CreateQR(ctx, q, func(q *link.QR) { q.Code = "stat" + typ[:4] }); err != nil {
			t.Fatal(err)
		}
		return q
	}
	lq := mk("link", "http://sho.rt/q/statlink", "https://example.com/menu")
	tq := mk("text", "Table 7", "")
	now := time.Now().UTC()
	var rows []click.Row
	for i := range uint64(4) {
		rows = append(rows, click.Row{ClickID: uint64(now.UnixNano()) + i, UnixNano: now.UnixNano(), Kind: click.KindQR, Class: click.ClassHuman,
			QRID: uint64(lq.ID), OwnerID: uint64(ann.ID), Visitor: i % 3, Country: "FR", Browser: "Safari", OS: "iOS", Device: "phone"})
	}
	// A link click with the same id is not a scan, nor are its device
	// and class.
	rows = append(rows, click.Row{ClickID: uint64(now.UnixNano()) + 9, UnixNano: now.UnixNano(), Kind: click.KindLink, Class: click.ClassHuman,
		LinkID: uint64(lq.ID), OwnerID: uint64(ann.ID), Visitor: 7, Country: "DE", Device: "tablet"},
		click.Row{ClickID: uint64(now.UnixNano()) + 10, UnixNano: now.UnixNano(), Kind: click.KindLink, Class: click.ClassBot,
			LinkID: uint64(lq.ID), OwnerID: uint64(ann.ID), Visitor: 8})
	insertClicks(t, e, rows)
	c := e.client()
	c.signIn("ann")
	page := c.get(fmt.Sprintf("/qr/%d/stats", lq.ID))
	if page.status != http.StatusOK {
		t.Fatalf("status %d", page.status)
	}
	for id, want := range map[string]string{"kpi-clicks": "4", "kpi-unique": "3"} {
		if got := textOf(t, page.body, id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if text := tagText.ReplaceAllString(page.body, " "); strings.Contains(strings.ToLower(text), "click") {
		t.Errorf("a QR code's page speaks of clicks: %q", text)
	}
	for _, s := range []string{"Scans by day", "Unique scans", "Scans by country", `<th scope="col" class="num">Scans</th>`, "https://example.com/menu", "France", html.EscapeString("Menu <b>link</b>"),
		fmt.Sprintf(`action="/qr/%d/stats"`, lq.ID), fmt.Sprintf(`href="/qr/%d/edit"`, lq.ID)} {
		if !strings.Contains(page.body, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if !strings.Contains(page.body, `<a href="/qr" aria-current="page">`) || strings.Contains(page.body, `<a href="/links" aria-current="page">`) {
		t.Error("the menu does not mark QR codes")
	}
	if devices := tableText(t, page.body, "devices"); !strings.Contains(devices, "4") || strings.Contains(devices, "Tablet") {
		t.Errorf("devices of the scans: %q", devices)
	}
	if strings.Contains(page.body, "Menu <b>") {
		t.Error("markup in the name is not escaped")
	}
	day := now.Format(time.DateOnly)
	csv := c.get(fmt.Sprintf("/qr/%d/stats.csv?from=%s&to=%s", lq.ID, day, day))
	if csv.status != http.StatusOK || !strings.Contains(csv.body, day+",4,3") ||
		!strings.Contains(csv.header.Get("Content-Disposition"), fmt.Sprintf("kurz-qr-%d-", lq.ID)) {
		t.Errorf("csv %d %q %q", csv.status, csv.body, csv.header.Get("Content-Disposition"))
	}
	text := c.get(fmt.Sprintf("/qr/%d/stats", tq.ID))
	if text.status != http.StatusOK || !strings.Contains(text.body, `id="not-counted"`) || strings.Contains(text.body, "kpi-clicks") {
		t.Errorf("a text code's page: %d", text.status)
	}
	e.statsDown()
	down := c.get(fmt.Sprintf("/qr/%d/stats", lq.ID))
	if !strings.Contains(down.body, `id="stats-down"`) || strings.Contains(down.body, "kpi-clicks") {
		t.Error("ClickHouse down: no notice, or numbers")
	}
	if p := c.get(fmt.Sprintf("/qr/%d/stats.csv", lq.ID)); p.status != http.StatusServiceUnavailable {
		t.Errorf("csv while down: %d", p.status)
	}
}

// tableText is the text of the table with id in body (tags removed).
func tableText(t *testing.T, body, id string) string {
	t.Helper()
	i := strings.Index(body, `<table class="data counts" id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no table #%s", id)
	}
	rest := body[i:]
	return strings.Join(strings.Fields(tagText.ReplaceAllString(rest[:strings.Index(rest, "</table>")], " ")), " ")
}

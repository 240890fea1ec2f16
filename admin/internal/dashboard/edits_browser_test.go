package dashboard

import (
	"context"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"kurz/admin/internal/dnscheck/dnstest"
	"kurz/shared/browsertest"
	"kurz/shared/click"
	"kurz/shared/config"
)

// TestScreenshotsQREdit: editing a QR code in the browser (its type
// fixed, the preview following the fields, a refusal on its field) and a
// link code's scan statistics; a text code's page says why it has none.
func TestScreenshotsQREdit(t *testing.T) {
	e := newEnv(t)
	u := e.user("maria")
	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)
	e.signIn(tab, "maria")

	tab.Open(e.base + "/qr/new")
	tab.Click("#t-wifi")
	tab.SetValue("#f-wifi_ssid", "Café Zentral")
	tab.SetValue("#f-wifi_password", "espresso-2026")
	tab.SetValue("#f-name", `Guest Wi-Fi <img src=x onerror="document.title='pwned'">`)
	if st := tab.ClickNavigate(".form-foot button[value=save]"); st != http.StatusOK {
		t.Fatalf("create: %d", st)
	}
	tab.ClickNavigate(`a[aria-label^="Edit Guest Wi-Fi"]`)
	if got := browsertest.Eval[string](tab, `document.querySelector("#f-wifi_ssid").value`); got != "Café Zentral" {
		t.Fatalf("edit form SSID %q", got)
	}
	if n := browsertest.Eval[float64](tab, `document.querySelectorAll("input[name=type][type=radio]").length`); n != 1 {
		t.Fatalf("%v type choices on the edit form", n)
	}
	waitImage(t, tab, "#qr-preview img")
	top(tab)
	shoot(t, tab, "01-qr-edit")
	tab.SetValue("#f-foreground", "#eeeeee")
	if st := tab.ClickNavigate(".form-foot button[value=save]"); st != http.StatusBadRequest {
		t.Fatalf("low contrast: %d", st)
	}
	if got := tab.Text("#f-foreground-error"); got == "" {
		t.Fatal("no error on the colour")
	}
	top(tab)
	shoot(t, tab, "02-qr-edit-error")
	tab.SetValue("#f-foreground", "#14532d")
	tab.SetValue("#f-wifi_ssid", "Café Zentral 5G")
	if st := tab.ClickNavigate(".form-foot button[value=save]"); st != http.StatusOK || !strings.HasSuffix(tab.URL(), "/qr") {
		t.Fatalf("save: %d at %s", st, tab.URL())
	}
	if got := tab.Text(".notice"); !strings.Contains(got, "saved") {
		t.Fatalf("flash %q", got)
	}
	shoot(t, tab, "03-qr-list")
	tab.ClickNavigate(`a[aria-label^="Scans of Guest Wi-Fi"]`)
	if got := tab.Text("#not-counted"); !strings.Contains(got, "not counted") {
		t.Fatalf("text code's stats: %q", got)
	}
	shoot(t, tab, "04-qr-stats-not-counted")

	tab.Open(e.base + "/qr/new")
	tab.SetValue("#f-link_data", "https://example.com/menu/spring")
	tab.SetValue("#f-name", "Table menu")
	tab.ClickNavigate(".form-foot button[value=save]")
	qrs, _, err := e.store.ListQRs(context.Background(), u.ID, 1, 0)
	if err != nil || len(qrs) != 1 {
		t.Fatal(qrs, err)
	}
	var rows []click.Row
	now := time.Now()
	for i := range 40 {
		at := now.Add(-time.Duration(i%12) * 24 * time.Hour)
		rows = append(rows, click.Row{ClickID: uint64(now.UnixNano()) + uint64(i), UnixNano: at.UnixNano(), Kind: click.KindQR,
			Class: click.ClassHuman, Visitor: uint64(i % 17), QRID: uint64(qrs[0].ID), OwnerID: uint64(u.ID),
			Country: []string{"FR", "DE", "IT"}[i%3], Browser: "Safari", OS: "iOS", Device: "phone"})
	}
	insertClicks(t, e, rows)
	tab.Open(e.base + "/qr")
	tab.ClickNavigate(`a[aria-label="Scans of Table menu"]`)
	if got := tab.Text("#kpi-clicks"); got != "40" {
		t.Fatalf("scans %q", got)
	}
	shoot(t, tab, "05-qr-stats")
	if browsertest.Eval[string](tab, `document.title`) == "pwned" {
		t.Fatal("markup ran")
	}
}

// TestScreenshotsDomainEdit: a branded domain's redirects edited in the
// browser: the form, a refused redirect loop, the list after saving.
func TestScreenshotsDomainEdit(t *testing.T) {
	dns := dnstest.Start(t, dnstest.Zone{
		"sho.rt":                    {Addrs: []netip.Addr{netip.MustParseAddr("192.0.2.10")}},
		"go.example.com":            {CNAME: "parking.registrar.example"},
		"parking.registrar.example": {Addrs: []netip.Addr{netip.MustParseAddr("198.51.100.7")}},
	})
	e := newEnv(t, func(c *config.Config) { c.DNSServer = dns.Addr })
	u := e.user("maria")
	if _, err := e.api.AddDomain(context.Background(), u, domainIn("https://go.example.com", "https://example.com", "")); err != nil {
		t.Fatal(err)
	}
	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)
	e.signIn(tab, "maria")
	tab.Open(e.base + "/domains")
	tab.ClickNavigate(`a[aria-label="Edit https://go.example.com"]`)
	shoot(t, tab, "01-domain-edit")
	// Check DNS: parked at the registrar first, then pointed here.
	if st := tab.ClickNavigate(".dns-check-form button"); st != http.StatusOK {
		t.Fatalf("check: %d", st)
	}
	if got := tab.Text(".dns-check"); !strings.Contains(got, "go.example.com points elsewhere") || !strings.Contains(got, "198.51.100.7") {
		t.Fatalf("check result %q", got)
	}
	shoot(t, tab, "01b-domain-dns-elsewhere")
	dns.Set("go.example.com", dnstest.Records{CNAME: "sho.rt"})
	time.Sleep(dnsCheckEvery) // one check per user in that window
	tab.ClickNavigate(".dns-check-form button")
	if got := tab.Text(".dns-check"); !strings.Contains(got, "go.example.com points here") {
		t.Fatalf("check result after the fix %q", got)
	}
	shoot(t, tab, "01c-domain-dns-ok")
	tab.SetValue("#f-redirect404", "https://go.example.com/oops")
	if st := tab.ClickNavigate(".domainform button[type=submit]"); st != http.StatusBadRequest {
		t.Fatalf("loop: %d", st)
	}
	if got := tab.Text("#f-redirect404-error"); !strings.Contains(got, "loop") {
		t.Fatalf("404 error %q", got)
	}
	shoot(t, tab, "02-domain-edit-error")
	tab.SetValue("#f-redirect404", "https://example.com/not-found")
	if st := tab.ClickNavigate(".domainform button[type=submit]"); st != http.StatusOK || !strings.HasSuffix(tab.URL(), "/domains") {
		t.Fatalf("save: %d at %s", st, tab.URL())
	}
	shoot(t, tab, "03-domains-after-edit")
}

package dashboard

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kurz/shared/browsertest"
	"kurz/shared/click"
)

// TestScreenshotsQR: the QR pages in the browser, empty list, the form
// with its live preview (only the picked type's fields show), a refused
// form, and the list with scans and thumbnails.
func TestScreenshotsQR(t *testing.T) {
	e := newEnv(t)
	u := e.user("maria")
	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)
	e.signIn(tab, "maria")

	tab.Open(e.base + "/qr")
	shoot(t, tab, "01-qr-empty")

	tab.Open(e.base + "/qr/new")
	waitForText(t, tab, "#qr-preview", "Web address: required") // the default type, nothing typed yet
	tab.Click("#t-wifi")
	if v := browsertest.Eval[bool](tab, `getComputedStyle(document.querySelector(".qr-wifi")).display !== "none" &&
		getComputedStyle(document.querySelector(".qr-link")).display === "none"`); !v {
		t.Fatal("picking Wi-Fi does not show only the Wi-Fi fields")
	}
	tab.SetValue("#f-wifi_ssid", "Café Zentral")
	tab.SetValue("#f-wifi_password", "espresso-2026")
	tab.SetValue("#f-name", `Wi-Fi for guests <img src=x onerror="document.title='pwned'">`)
	tab.SetValue("#f-foreground", "#3730a3")
	typed(tab, "#f-wifi_ssid")
	waitImage(t, tab, "#qr-preview img")
	top(tab)
	shoot(t, tab, "02-qr-new-wifi")

	browsertest.Eval[bool](tab, `(document.querySelector("#f-wifi_ssid").value = "", true)`) // SetValue cannot set ""
	if st := tab.ClickNavigate(".form-foot button[value=save]"); st != http.StatusBadRequest {
		t.Fatalf("empty SSID: status %d", st)
	}
	if got := tab.Text("#f-wifi_ssid-error"); !strings.Contains(got, "Required") {
		t.Fatalf("SSID error: %q", got)
	}
	top(tab)
	shoot(t, tab, "03-qr-new-error")
	tab.SetValue("#f-wifi_ssid", "Café Zentral")
	// The logo from a file on this computer, sent with the form: first
	// one that is not an image, refused under the file field.
	dir := t.TempDir()
	notImage, logo := filepath.Join(dir, "notes.png"), filepath.Join(dir, "logo.png")
	if err := os.WriteFile(notImage, []byte("just text"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logo, testPNG(t), 0o600); err != nil {
		t.Fatal(err)
	}
	tab.SetFiles("#f-logo_file", notImage)
	if st := tab.ClickNavigate(".form-foot button[value=save]"); st != http.StatusBadRequest {
		t.Fatalf("a text file as the logo: status %d", st)
	}
	if got := tab.Text("#f-logo_file-error"); !strings.Contains(got, "Not a PNG or JPEG image") {
		t.Fatalf("logo file error: %q", got)
	}
	top(tab)
	shoot(t, tab, "03b-qr-new-logo-error")
	tab.SetFiles("#f-logo_file", logo)
	if st := tab.ClickNavigate(".form-foot button[value=save]"); st != http.StatusOK || !strings.HasSuffix(tab.URL(), "/qr") {
		t.Fatalf("save: %d at %s", st, tab.URL())
	}
	qrs, _, err := e.store.ListQRs(context.Background(), u.ID, 10, 0)
	if err != nil || len(qrs) != 1 || !qrs[0].HasLogo {
		t.Fatalf("saved %+v, %v; want one code with the file's logo", qrs, err)
	}
	e.link(u, map[string]string{"url": "https://example.com/"})
	now := time.Now().UnixNano()
	insertClicks(t, e, []click.Row{
		{ClickID: uint64(now), UnixNano: now, Kind: click.KindQR, Class: click.ClassHuman, QRID: uint64(qrs[0].ID), OwnerID: uint64(u.ID), Visitor: 1},
		{ClickID: uint64(now) + 1, UnixNano: now, Kind: click.KindQR, Class: click.ClassHuman, QRID: uint64(qrs[0].ID), OwnerID: uint64(u.ID), Visitor: 2},
	})
	tab.Open(e.base + "/qr")
	waitImage(t, tab, ".qr-thumb img")
	if got := tab.Text(".scans"); got != "2" {
		t.Fatalf("scans: %q", got)
	}
	if browsertest.Eval[string](tab, `document.title`) == "pwned" {
		t.Fatal("markup in the name ran")
	}
	shoot(t, tab, "04-qr-list")
}

// waitImage waits until the image has loaded (the CSP allows it, the
// server drew it).
func waitImage(t *testing.T, tab *browsertest.Tab, sel string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !browsertest.Eval[bool](tab, `(() => { const i = document.querySelector(`+jsString(sel)+`); return !!i && i.complete && i.naturalWidth > 0 })()`) {
		if time.Now().After(deadline) {
			t.Fatalf("image %s did not load", sel)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

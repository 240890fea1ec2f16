package dashboard

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"kurz/shared/browsertest"
)

// waitForPreview waits until the preview frame shows a document whose
// address contains want and whose sel element's text contains text: the
// script reloads it as the form changes.
func waitForPreview(t *testing.T, tab *browsertest.Tab, base, want, sel, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, u := range tab.IsolatedFrameURLs(base) {
			if got, ok := tab.IsolatedFrameText(u, sel); ok && strings.Contains(u, "/preview?") && strings.Contains(u, want) && strings.Contains(got, text) {
				time.Sleep(time.Second) // the stand-in destination inside it
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the preview does not show %q in %s (want %q in its address); frames %q", text, sel, want, tab.IsolatedFrameURLs(base))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestScreenshotsVisitorPages: splash pages and overlays in the browser:
// empty lists, the forms with their live previews following what is
// typed, a refused form, the lists, edit and delete; markup typed in a
// name or message does not run, in the page or in the preview.
func TestScreenshotsVisitorPages(t *testing.T) {
	e := newEnv(t)
	e.user("maria")
	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)
	e.signIn(tab, "maria")
	pwned := `<img src=x onerror="document.title='pwned'">`

	tab.Open(e.base + "/splash")
	if got := tab.Text(".empty h2"); got != "No splash pages yet" {
		t.Fatalf("splash empty state: %q", got)
	}
	shoot(t, tab, "01-splash-empty")
	tab.ClickNavigate(`.tabs a[href="/overlays"]`)
	if got := tab.Text(".empty h2"); got != "No overlays yet" {
		t.Fatalf("overlay empty state: %q", got)
	}
	shoot(t, tab, "02-overlays-empty")

	tab.ClickNavigate(".head .btn-primary")
	waitForPreview(t, tab, e.base, "position=bottom-left", ".ov", "")
	shoot(t, tab, "03-overlay-new")
	tab.SetValue("#f-name", "Spring banner "+pwned)
	tab.SetValue("#f-message", "Spring sale: up to 50% off everything in the shop until Sunday. "+pwned)
	tab.SetValue("#f-button_text", "Shop the sale")
	tab.SetValue("#f-button_url", "javascript:alert(1)")
	tab.SetValue("#f-background", "#0a3d62")
	tab.SetValue("#f-color", "#fdf6e3")
	tab.SetValue("#f-position", "bottom-right")
	typed(tab, "#f-message")
	waitForPreview(t, tab, e.base, "position=bottom-right", ".ov p", "Spring sale: up to 50% off")
	if st := tab.ClickNavigate(".vpform .form-foot button[type=submit]"); st != http.StatusBadRequest {
		t.Fatalf("refused form: status %d", st)
	}
	if got := tab.Text("#f-button_url-error"); !strings.Contains(got, "http") {
		t.Fatalf("button link error: %q", got)
	}
	if got := browsertest.Eval[string](tab, `document.querySelector("#f-message").value`); !strings.Contains(got, pwned) {
		t.Fatalf("the typed message is not kept: %q", got)
	}
	waitForPreview(t, tab, e.base, "position=bottom-right", ".ov p", "Spring sale")
	shoot(t, tab, "04-overlay-errors")
	tab.SetValue("#f-button_url", "https://shop.example.com/spring")
	typed(tab, "#f-button_url")
	waitForPreview(t, tab, e.base, "shop.example.com", ".ov-btn", "Shop the sale")
	shoot(t, tab, "05-overlay-preview")
	if st := tab.ClickNavigate(".vpform .form-foot button[type=submit]"); st != http.StatusOK || !strings.HasSuffix(tab.URL(), "/overlays") {
		t.Fatalf("create: %d at %s", st, tab.URL())
	}
	if browsertest.Eval[string](tab, `document.title`) == "pwned" {
		t.Fatal("markup in the overlay ran")
	}
	shoot(t, tab, "06-overlays-list")
	tab.ClickNavigate(".row-actions a:first-child")
	waitForPreview(t, tab, e.base, "position=bottom-right", ".ov-btn", "Shop the sale")
	shoot(t, tab, "07-overlay-edit")

	tab.Open(e.base + "/splash/new")
	tab.SetValue("#f-name", "Welcome to the shop")
	tab.SetValue("#f-title", "Welcome to Example Shop")
	tab.SetValue("#f-message", "You are on your way to our spring collection. "+pwned)
	tab.SetValue("#f-image", "https://cdn.example.com/spring-banner.png")
	tab.SetValue("#f-link", "https://example.com/about")
	tab.SetValue("#f-counter", "45")
	typed(tab, "#f-counter")
	waitForPreview(t, tab, e.base, "counter=45", "h1", "Welcome to Example Shop")
	shoot(t, tab, "08-splash-new")
	tab.SetValue("#f-counter", "90")
	if st := tab.ClickNavigate(".vpform .form-foot button[type=submit]"); st != http.StatusBadRequest {
		t.Fatalf("refused splash: status %d", st)
	}
	if got := tab.Text("#f-counter-error"); !strings.Contains(got, "0 to 60") {
		t.Fatalf("counter error: %q", got)
	}
	waitForPreview(t, tab, e.base, "counter=90", "h1", "Welcome to Example Shop")
	shoot(t, tab, "09-splash-errors")
	tab.SetValue("#f-counter", "45")
	if st := tab.ClickNavigate(".vpform .form-foot button[type=submit]"); st != http.StatusOK || !strings.HasSuffix(tab.URL(), "/splash") {
		t.Fatalf("create splash: %d at %s", st, tab.URL())
	}
	shoot(t, tab, "10-splash-list")
	tab.ClickNavigate(`a[aria-label="Delete Welcome to the shop"]`)
	waitForPreview(t, tab, e.base, "counter=45", "h1", "Welcome to Example Shop")
	shoot(t, tab, "11-splash-delete")
	if st := tab.ClickNavigate(".confirm button[type=submit]"); st != http.StatusOK {
		t.Fatalf("delete: %d", st)
	}
	if got := tab.Text(".empty h2"); got != "No splash pages yet" {
		t.Fatalf("after delete: %q", got)
	}
	if browsertest.Eval[string](tab, `document.title`) == "pwned" {
		t.Fatal("markup ran")
	}
}

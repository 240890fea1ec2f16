package dashboard

import (
	"net/http"
	"strings"
	"testing"

	"kurz/shared/browsertest"
)

// TestScreenshotsPixels: the pixel pages in the browser: empty list, the
// form, a refused form (errors next to their fields), the list, the edit
// form and the delete confirmation; markup in a name does not run.
func TestScreenshotsPixels(t *testing.T) {
	e := newEnv(t)
	e.user("maria")
	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)
	e.signIn(tab, "maria")

	tab.Open(e.base + "/pixels")
	if got := tab.Text(".empty h2"); got != "No pixels yet" {
		t.Fatalf("empty state: %q", got)
	}
	shoot(t, tab, "01-pixels-empty")

	tab.Open(e.base + "/pixels/new")
	shoot(t, tab, "02-pixel-new")
	tab.SetValue("#f-name", `Ads <img src=x onerror="document.title='pwned'">`)
	tab.SetValue("#f-tag", "not a tag!")
	if st := tab.ClickNavigate(".pixelform button[type=submit]"); st != http.StatusBadRequest {
		t.Fatalf("refused form: status %d", st)
	}
	if got := tab.Text("#f-type-error"); !strings.Contains(got, "Must be one of") {
		t.Fatalf("type error: %q", got)
	}
	if got := tab.Text("#f-tag-error"); !strings.Contains(got, "Must be 1 to 128") {
		t.Fatalf("tag error: %q", got)
	}
	shoot(t, tab, "03-pixel-errors")

	tab.SetValue("#f-type", "socialnetworkpixel")
	tab.SetValue("#f-tag", "1234567890123456")
	if st := tab.ClickNavigate(".pixelform button[type=submit]"); st != http.StatusOK || !strings.HasSuffix(tab.URL(), "/pixels") {
		t.Fatalf("add: %d at %s", st, tab.URL())
	}
	tab.Open(e.base + "/pixels/new")
	tab.SetValue("#f-type", "tagmanagerpixel")
	tab.SetValue("#f-name", "Main tag manager")
	tab.SetValue("#f-tag", "GTM-ABC123")
	tab.ClickNavigate(".pixelform button[type=submit]")
	if got := tab.Text(".notice"); !strings.Contains(got, "Main tag manager") {
		t.Fatalf("flash: %q", got)
	}
	if browsertest.Eval[string](tab, `document.title`) == "pwned" {
		t.Fatal("markup in the name ran")
	}
	shoot(t, tab, "04-pixels-list")

	tab.ClickNavigate(`a[aria-label="Edit Main tag manager"]`)
	if got := browsertest.Eval[string](tab, `document.querySelector("#f-tag").value`); got != "GTM-ABC123" {
		t.Fatalf("edit form tag %q", got)
	}
	shoot(t, tab, "05-pixel-edit")
	tab.Open(e.base + "/pixels")
	tab.ClickNavigate(`a[aria-label="Delete Main tag manager"]`)
	shoot(t, tab, "06-pixel-delete")
	if st := tab.ClickNavigate(".confirm button[type=submit]"); st != http.StatusOK {
		t.Fatalf("delete: %d", st)
	}
	if n := browsertest.Eval[float64](tab, `document.querySelectorAll("tr[data-id]").length`); n != 1 {
		t.Fatalf("%v rows after delete", n)
	}
}

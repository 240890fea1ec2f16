package dashboard

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"kurz/shared/browsertest"
)

// waitForText waits until the element's text contains want (the script's
// preview and alias check answer asynchronously).
func waitForText(t *testing.T, tab *browsertest.Tab, sel, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := browsertest.Eval[string](tab, `(document.querySelector(`+jsString(sel)+`)||{}).textContent||""`)
		if strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s shows %q, want %q", sel, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// typed tells the page's script that a field changed (SetValue pastes
// without events).
// top scrolls to the top, so the sticky preview is photographed in place.
func top(tab *browsertest.Tab) { browsertest.Eval[bool](tab, `(window.scrollTo(0, 0), true)`) }

func typed(tab *browsertest.Tab, sel string) {
	browsertest.Eval[bool](tab, `document.querySelector(`+jsString(sel)+`).dispatchEvent(new Event("input", {bubbles: true})) && true`)
}

// TestScreenshotsLinkForm builds a link with rules in the browser: rows
// added with the form's buttons, the live preview, the alias check, the
// social card, save and edit; markup typed anywhere stays text.
func TestScreenshotsLinkForm(t *testing.T) {
	e := newEnv(t)
	u := e.user("maria")
	e.groups(u)
	e.link(u, map[string]string{"url": "https://example.com/", "custom": "taken-one"})
	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)
	e.signIn(tab, "maria")

	tab.Open(e.base + "/links/new")
	tab.SetValue("#f-url", "https://shop.example.com/collections/spring-sale-2026")
	for _, add := range []string{"add-geo", "add-geo", "add-device", "add-lang", "add-param"} {
		if st := tab.ClickNavigate("input[name=" + add + "]"); st != http.StatusOK {
			t.Fatalf("%s: status %d", add, st)
		}
	}
	for sel, v := range map[string]string{
		"#geo-key-0": "Germany", "#geo-url-0": "https://shop.example.com/de/fruehling",
		"#geo-key-1": "Austria", "#geo-url-1": "https://shop.example.com/at/fruehling",
		"#device-key-0": "iphone", "#device-url-0": "https://shop.example.com/app-landing",
		"#lang-key-0": "fr", "#lang-url-0": "https://shop.example.com/fr/printemps",
		"#param-key-0": "utm_source", "#param-url-0": "newsletter",
		"#f-metatitle":       `Spring sale 2026 <img src=x onerror="document.title='pwned'">`,
		"#f-metadescription": "Everything must go: up to 60% off the spring collection.",
		"#f-metaimage":       "https://img.example.com/spring-card.jpg",
		"#f-android_store":   "https://play.google.com/store/apps/details?id=com.example.shop",
	} {
		tab.SetValue(sel, v)
	}
	tab.Click("input[name=pixels]")
	tab.SetValue("#pv-country", "AT")
	tab.SetValue("#pv-device", "windows")
	typed(tab, "#f-metatitle")
	// The address with the link's URL parameters, as the edge sends it.
	waitForText(t, tab, "#preview", "https://shop.example.com/at/fruehling?utm_source=newsletter")
	waitForText(t, tab, "#preview", "A visitor from Austria on a Windows")
	// The preview updates as you type: a Germany visitor on an iPhone.
	tab.SetValue("#pv-country", "DE")
	tab.SetValue("#pv-device", "iphone")
	typed(tab, "#pv-lang")
	waitForText(t, tab, "#preview", "https://shop.example.com/de/fruehling")
	// An Android visitor gets the Play Store deep link, before any rule.
	tab.SetValue("#pv-device", "android")
	typed(tab, "#pv-lang")
	waitForText(t, tab, "#preview", "play.google.com")
	tab.SetValue("#pv-device", "iphone")
	typed(tab, "#pv-lang")
	waitForText(t, tab, "#preview", "https://shop.example.com/de/fruehling")

	tab.SetValue("#f-custom", "taken-one")
	typed(tab, "#f-custom")
	waitForText(t, tab, "#f-custom-status", "already taken")
	tab.SetValue("#f-custom", "spring-sale")
	typed(tab, "#f-custom")
	waitForText(t, tab, "#f-custom-status", "is available")
	if n := browsertest.Eval[int](tab, `document.querySelectorAll("#preview img, main img[src=x]").length`); n != 0 || tab.Text("title") == "pwned" {
		t.Fatal("markup typed in the title became an element")
	}
	top(tab)
	shoot(t, tab, "01-link-form-rules")

	// A refused save keeps every row and marks the wrong one.
	tab.SetValue("#geo-key-1", "Atlantis")
	tab.ClickNavigate(".form-foot button[value=save]")
	if got := tab.Text("#geo-key-1-error"); !strings.Contains(got, "Unknown country") {
		t.Fatalf("row error: %q", got)
	}
	if v := tab.Attr("#device-url-0", "value"); v != "https://shop.example.com/app-landing" {
		t.Fatalf("a refused save lost the device rule: %q", v)
	}
	top(tab)
	shoot(t, tab, "02-link-form-row-error")

	tab.SetValue("#geo-key-1", "Austria")
	if st := tab.ClickNavigate(".form-foot button[value=save]"); st != http.StatusOK || !strings.HasSuffix(tab.URL(), "/links") {
		t.Fatalf("save: status %d at %s: %s", st, tab.URL(), tab.Text("main"))
	}
	links, _, err := e.store.ListLinks(context.Background(), u.ID, nil, 10, 0)
	if err != nil || len(links) != 2 {
		t.Fatalf("links: %d, %v", len(links), err)
	}
	l, _ := e.store.LinkByID(context.Background(), u.ID, links[0].ID)
	if l.Alias != "spring-sale" || len(l.GeoTargets) != 2 || len(l.DeviceTargets) != 1 || len(l.LangTargets) != 1 ||
		len(l.Parameters) != 1 || len(l.PixelIDs) != 1 {
		t.Fatalf("saved link: %+v", l)
	}
	tab.Open(e.base + "/links/" + id(l.ID) + "/edit")
	waitForText(t, tab, "#preview", "https://shop.example.com/de/fruehling")
	top(tab)
	shoot(t, tab, "03-link-form-edit")
}

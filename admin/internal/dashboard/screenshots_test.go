package dashboard

import (
	"context"
	"net/http"
	"testing"
	"time"

	"kurz/shared/browsertest"
	"kurz/shared/click"
	"kurz/shared/secret"
)

// Screenshots of every page of the dashboard at desktop (1440 px) and
// phone (360 px) width, for people to look at: `make screenshots` writes
// them to .run/screenshots/dashboard (make test to .run/test/screenshots).
// Each width is also checked for content wider than the screen.

// shoot photographs the tab's page at both widths, after checking that
// every control has a label.
func shoot(t *testing.T, tab *browsertest.Tab, step string) {
	t.Helper()
	unlabelled := browsertest.Eval[[]string](tab, `[...document.querySelectorAll(
		"input:not([type=hidden]):not([hidden]), select, textarea, button")]
		.filter(c => c.labels?.length === 0 && !c.getAttribute("aria-label") && !c.textContent.trim())
		.map(c => c.outerHTML)`)
	if len(unlabelled) > 0 {
		t.Errorf("%s: controls without a label: %q", step, unlabelled)
	}
	for _, w := range []struct {
		name string
		w, h int64
	}{{"1440", 1440, 900}, {"360", 360, 740}} {
		tab.Viewport(w.w, w.h)
		if over := browsertest.Eval[float64](tab, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
			t.Errorf("%s at %s px: the page is %v px wider than the screen", step, w.name, over)
		}
		if browsertest.Eval[bool](tab, `!!document.querySelector("iframe")`) {
			// Chromium paints out-of-process frames (the sandboxed previews)
			// only inside the viewport: make it the whole page.
			h := int64(browsertest.Eval[float64](tab, `document.documentElement.scrollHeight`))
			tab.Viewport(w.w, max(h, w.h))
			time.Sleep(time.Second)
		}
		tab.Screenshot(step + "-" + w.name)
	}
	tab.Viewport(1440, 900)
}

// TestScreenshots walks every page and state a marketer meets.
func TestScreenshots(t *testing.T) {
	e := newEnv(t)
	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)

	tab.Open(e.base + "/login")
	shoot(t, tab, "01-login")
	tab.SetValue("#f-login", "nobody")
	tab.SetValue("#f-password", "wrong password")
	tab.ClickNavigate("form[action='/login'] button[type=submit]")
	shoot(t, tab, "02-login-wrong")

	tab.Open(e.base + "/signup")
	shoot(t, tab, "03-signup")
	tab.SetValue("#f-email", "not-an-email")
	tab.SetValue("#f-username", "Maria Marketing")
	tab.SetValue("#f-password", "short")
	tab.ClickNavigate("form[action='/signup'] button[type=submit]")
	shoot(t, tab, "04-signup-errors")
	tab.SetValue("#f-email", "maria@example.com")
	tab.SetValue("#f-username", "maria")
	tab.SetValue("#f-password", testPassword)
	tab.ClickNavigate("form[action='/signup'] button[type=submit]")
	shoot(t, tab, "05-welcome")

	tab.Open(e.base + "/links")
	shoot(t, tab, "06-links-empty")

	tab.Open(e.base + "/links/new")
	shoot(t, tab, "07-new-link")
	tab.SetValue("#f-url", "javascript:alert(1)")
	tab.SetValue("#f-custom", "no")
	tab.ClickNavigate("main form button[type=submit]")
	shoot(t, tab, "08-new-link-errors")
	tab.SetValue("#f-url", "https://shop.example.com/collections/spring-sale-2026/items?utm_source=newsletter&utm_medium=email&utm_campaign=spring-sale-2026-launch")
	tab.SetValue("#f-custom", "spring-sale")
	tab.SetValue("#f-metatitle", "Spring sale 2026: everything must go")
	tab.ClickNavigate("main form button[type=submit]")
	shoot(t, tab, "09-links-created")

	fillLinks(t, e, "maria")
	tab.Open(e.base + "/links")
	shoot(t, tab, "10-links")
	id := tab.Attr("tbody tr:first-child", "data-id")
	tab.Open(e.base + "/links?q=spring")
	shoot(t, tab, "11-links-search")
	tab.Open(e.base + "/links?q=nothing-like-this")
	shoot(t, tab, "12-links-no-match")
	shootFilters(t, e, tab, "maria")

	tab.Open(e.base + "/links/" + id + "/edit")
	shoot(t, tab, "13-edit-link")
	tab.Open(e.base + "/links/" + id + "/delete")
	shoot(t, tab, "14-delete-link")

	tab.Open(e.base + "/account")
	shoot(t, tab, "15-account")
	tab.ClickNavigate("form[action='/account/key'] button")
	shoot(t, tab, "16-account-new-key")
	tab.SetValue("#pw-current", "wrong password")
	tab.SetValue("#pw-new", "short")
	tab.SetValue("#pw-confirm", "short")
	tab.ClickNavigate("form[action='/account/password'] button")
	shoot(t, tab, "17-account-errors")

	if st := tab.Open(e.base + "/links/999999/edit"); st != http.StatusNotFound {
		t.Errorf("unknown link: status %d", st)
	}
	shoot(t, tab, "18-not-found")

	e.statsDown()
	tab.Open(e.base + "/links?sort=clicks")
	shoot(t, tab, "19-links-stats-unavailable")

	token, hash := secret.NewToken()
	if _, _, err := e.store.CreatePasswordReset(context.Background(), "maria@example.com", hash, time.Hour); err != nil {
		t.Fatal(err)
	}
	tab.ClickNavigate("form.signout button")
	tab.Open(e.base + ResetPath(token))
	shoot(t, tab, "20-reset-password")
}

// fillLinks gives name's account links of every kind of text, with clicks.
func fillLinks(t *testing.T, e *env, name string) {
	t.Helper()
	u, _, err := e.store.LoginUser(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	var rows []click.Row
	for i, l := range []map[string]string{
		{"url": "https://example.com/blog/how-we-grew-our-newsletter", "metatitle": "Newsletter growth story"},
		{"url": "https://example.com/pricing", "custom": "pricing", "metatitle": "Pricing"},
		{"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG", "metatitle": "Launch video"},
		{"url": "https://a-very-long-host-name-for-testing-the-layout.example.org/" +
			"path/that/keeps/going/and/going/without/any/spaces/at/all/to/break/it", "custom": "long-one"},
		{"url": "https://example.com/spring/landing", "custom": "spring-landing", "metatitle": "Spring landing page"},
	} {
		lk := e.link(u, l)
		for v := range (i + 1) * 3 {
			rows = append(rows, click.Row{ClickID: uint64(time.Now().UnixNano()) + uint64(len(rows)),
				UnixNano: time.Now().UnixNano(), Kind: click.KindLink, Class: click.ClassHuman,
				Visitor: uint64(v % (i + 2)), LinkID: uint64(lk.ID), OwnerID: uint64(u.ID), Country: "DE",
				Browser: "Chrome", OS: "Windows", Device: "desktop"})
		}
	}
	insertClicks(t, e, rows)
}

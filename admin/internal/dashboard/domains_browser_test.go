package dashboard

import (
	"net/http"
	"strings"
	"testing"

	"kurz/shared/browsertest"
)

// TestScreenshotsDomains: the branded domain pages in the browser: empty
// list, the form with the DNS record, a refused form, the list, a delete
// refused while a link uses the domain.
func TestScreenshotsDomains(t *testing.T) {
	e := newEnv(t)
	u := e.user("maria")
	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)
	e.signIn(tab, "maria")

	tab.Open(e.base + "/domains")
	if got := tab.Text(".empty h2"); got != "No branded domains yet" {
		t.Fatalf("empty state: %q", got)
	}
	shoot(t, tab, "01-domains-empty")
	tab.Open(e.base + "/domains/new")
	shoot(t, tab, "02-domain-new")
	tab.SetValue("#f-domain", "https://go.example.com/spring")
	tab.SetValue("#f-redirect404", `https://example.com/"><img src=x onerror="document.title='pwned'">`)
	if st := tab.ClickNavigate(".domainform button[type=submit]"); st != http.StatusBadRequest {
		t.Fatalf("refused form: %d", st)
	}
	if tab.Text("#f-domain-error") == "" {
		t.Fatal("no domain error")
	}
	shoot(t, tab, "03-domain-error")
	tab.SetValue("#f-domain", "https://go.example.com")
	tab.SetValue("#f-redirectroot", "https://example.com/")
	tab.SetValue("#f-redirect404", "https://example.com/not-found")
	if st := tab.ClickNavigate(".domainform button[type=submit]"); st != http.StatusOK || !strings.HasSuffix(tab.URL(), "/domains") {
		t.Fatalf("add: %d at %s", st, tab.URL())
	}
	if browsertest.Eval[string](tab, `document.title`) == "pwned" {
		t.Fatal("markup ran")
	}
	shoot(t, tab, "04-domains-list")
	e.link(u, map[string]string{"url": "https://example.com/spring", "domain": "https://go.example.com"})
	tab.ClickNavigate(`a[aria-label="Delete https://go.example.com"]`)
	if st := tab.ClickNavigate(".confirm button[type=submit]"); st != http.StatusConflict {
		t.Fatalf("delete in use: %d", st)
	}
	shoot(t, tab, "05-domain-delete-in-use")
}

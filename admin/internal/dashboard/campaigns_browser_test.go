package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"kurz/shared/browsertest"
)

// TestScreenshotsCampaigns: the campaign pages in the browser: empty list,
// a refused form, a campaign with links put in and one taken out with
// the page's own forms, the list, edit and delete;
// markup in a name does not run.
func TestScreenshotsCampaigns(t *testing.T) {
	e := newEnv(t)
	u := e.user("maria")
	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)
	e.signIn(tab, "maria")

	tab.Open(e.base + "/campaigns")
	if got := tab.Text(".empty h2"); got != "No campaigns yet" {
		t.Fatalf("empty state: %q", got)
	}
	shoot(t, tab, "01-campaigns-empty")

	tab.Open(e.base + "/campaigns/new")
	tab.SetValue("#f-name", `Spring <img src=x onerror="document.title='pwned'">`)
	tab.SetValue("#f-slug", "2026")
	if st := tab.ClickNavigate(".campaignform button[type=submit]"); st != http.StatusBadRequest {
		t.Fatalf("refused form: status %d", st)
	}
	if got := tab.Text("#f-slug-error"); got == "" {
		t.Fatal("no slug error")
	}
	shoot(t, tab, "02-campaign-error")
	tab.SetValue("#f-slug", "spring-sale")
	tab.Click("#f-public")
	if st := tab.ClickNavigate(".campaignform button[type=submit]"); st != http.StatusOK || !strings.Contains(tab.URL(), "/campaigns/") {
		t.Fatalf("create: %d at %s", st, tab.URL())
	}
	shoot(t, tab, "03-campaign-empty-links")
	cs, _, err := e.store.ListCampaigns(context.Background(), u.ID, 1, 0)
	if err != nil || len(cs) != 1 {
		t.Fatal(cs, err)
	}
	var ids []int64
	for _, dest := range []string{"https://example.com/spring/landing-a", "https://example.com/spring/landing-b?utm_source=newsletter", "https://example.com/spring/outlet"} {
		ids = append(ids, e.link(u, map[string]string{"url": dest}).ID)
	}
	here := tab.URL()
	// Three through the add form, one of them taken out with its Remove button.
	for _, l := range ids {
		tab.Open(here)
		tab.SetValue("#f-link", strconv.FormatInt(l, 10))
		if st := tab.ClickNavigate(".assign button[type=submit]"); st != http.StatusOK {
			t.Fatalf("add link %d: %d", l, st)
		}
	}
	if st := tab.ClickNavigate(fmt.Sprintf(`form.inline:has(input[value="%d"]) button`, ids[2])); st != http.StatusOK {
		t.Fatalf("remove: %d", st)
	}
	if n := browsertest.Eval[float64](tab, `document.querySelectorAll("tr[data-id]").length`); n != 2 {
		t.Fatalf("%v links shown", n)
	}
	shoot(t, tab, "04-campaign")
	if _, err := e.store.CreateCampaign(context.Background(), cs[0]); err == nil {
		t.Fatal("a second campaign with the same slug was stored")
	}
	tab.Open(e.base + "/campaigns/new")
	tab.SetValue("#f-name", "Newsletter")
	tab.ClickNavigate(".campaignform button[type=submit]")
	tab.Open(e.base + "/campaigns")
	if browsertest.Eval[string](tab, `document.title`) == "pwned" {
		t.Fatal("markup in the name ran")
	}
	shoot(t, tab, "05-campaigns-list")
	tab.ClickNavigate(`a[aria-label="Edit Newsletter"]`)
	shoot(t, tab, "06-campaign-edit")
	tab.Open(e.base + "/campaigns")
	tab.ClickNavigate(`a[aria-label="Delete Newsletter"]`)
	shoot(t, tab, "07-campaign-delete")
	if st := tab.ClickNavigate(".confirm button[type=submit]"); st != http.StatusOK {
		t.Fatalf("delete: %d", st)
	}
}

package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"kurz/admin/internal/api"
	"kurz/shared/browsertest"
	"kurz/shared/link"
)

// TestScreenshotsChannels: the channel pages in the browser: empty list, a
// refused form, a channel with items of all three kinds added with its
// form, the list, edit and delete; markup in a name does not run.
func TestScreenshotsChannels(t *testing.T) {
	e := newEnv(t)
	u := e.user("maria")
	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)
	e.signIn(tab, "maria")

	tab.Open(e.base + "/channels")
	if got := tab.Text(".empty h2"); got != "No channels yet" {
		t.Fatalf("empty state: %q", got)
	}
	shoot(t, tab, "01-channels-empty")

	tab.Open(e.base + "/channels/new")
	tab.SetValue("#f-name", `Instagram <img src=x onerror="document.title='pwned'">`)
	tab.SetValue("#f-color", "pink")
	if st := tab.ClickNavigate(".channelform button[type=submit]"); st != http.StatusBadRequest {
		t.Fatalf("refused form: status %d", st)
	}
	if tab.Text("#f-color-error") == "" {
		t.Fatal("no colour error")
	}
	shoot(t, tab, "02-channel-error")
	tab.SetValue("#f-color", "#db2777")
	if st := tab.ClickNavigate(".channelform button[type=submit]"); st != http.StatusOK || !strings.Contains(tab.URL(), "/channels/") {
		t.Fatalf("create: %d at %s", st, tab.URL())
	}
	shoot(t, tab, "03-channel-empty")

	l := e.link(u, map[string]string{"url": "https://example.com/summer-collection", "metatitle": "Summer collection"})
	bioID, err := e.store.CreateBioPage(context.Background(), link.BioPage{UserID: u.ID, Title: "Maria's links", Alias: "maria"})
	if err != nil {
		t.Fatal(err)
	}
	typ, name := "link", "Shop window"
	q, err := e.api.AddQR(context.Background(), u, &api.QRInput{Type: &typ, Name: &name, Data: []byte(`"https://example.com/shop"`)})
	if err != nil {
		t.Fatal(err)
	}
	here := tab.URL()
	for _, item := range []string{fmt.Sprintf("links:%d", l.ID), fmt.Sprintf("bio:%d", bioID), fmt.Sprintf("qr:%d", q.ID)} {
		tab.Open(here)
		tab.SetValue("#f-item", item)
		if st := tab.ClickNavigate(".assign button[type=submit]"); st != http.StatusOK {
			t.Fatalf("assign %s: %d", item, st)
		}
	}
	if n := browsertest.Eval[float64](tab, `document.querySelectorAll(".channel-items tbody tr").length`); n != 3 {
		t.Fatalf("%v items", n)
	}
	if browsertest.Eval[string](tab, `document.title`) == "pwned" {
		t.Fatal("markup in the name ran")
	}
	shoot(t, tab, "04-channel")
	// The bio page's Remove button: the channel keeps the other two.
	if st := tab.ClickNavigate(fmt.Sprintf(`.channel-items form.inline:has(input[value="bio:%d"]) button`, bioID)); st != http.StatusOK {
		t.Fatalf("remove: %d", st)
	}
	if n := browsertest.Eval[float64](tab, `document.querySelectorAll(".channel-items tbody tr").length`); n != 2 {
		t.Fatalf("%v items after removing one", n)
	}
	shoot(t, tab, "04b-channel-removed")
	tab.Open(e.base + "/channels")
	shoot(t, tab, "05-channels-list")
	tab.Open(here + "/edit")
	shoot(t, tab, "06-channel-edit")
	tab.Open(here + "/delete")
	shoot(t, tab, "07-channel-delete")
	if st := tab.ClickNavigate(".confirm button[type=submit]"); st != http.StatusOK {
		t.Fatalf("delete: %d", st)
	}
}

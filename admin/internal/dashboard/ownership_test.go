package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kurz/shared/browsertest"
)

// TestOtherUsersLink404: another user's link id in a URL is the same 404 as
// an id that does not exist, in the browser and for forms posted with a
// valid session and token; the link is neither shown nor changed.
func TestOtherUsersLink404(t *testing.T) {
	e := newEnv(t)
	ann, _ := e.user("ann"), e.user("bob")
	l := e.link(ann, map[string]string{"url": "https://example.com/anns-secret-page", "custom": "anns", "metatitle": "Ann's plan"})

	tab := browsertest.NewTab(t)
	e.signIn(tab, "bob")
	for _, path := range []string{
		fmt.Sprintf("/links/%d/edit", l.ID), fmt.Sprintf("/links/%d/delete", l.ID),
		"/links/999999999/edit", "/links/abc/edit", "/links/0/delete",
	} {
		if st := tab.Open(e.base + path); st != http.StatusNotFound {
			t.Errorf("bob opens %s: status %d, want 404", path, st)
		}
		if h := tab.Text("main h1"); h != "Not found" {
			t.Errorf("%s shows %q", path, h)
		}
		if body := tab.Text("main"); strings.Contains(body, "anns") || strings.Contains(body, "secret") {
			t.Errorf("%s shows Ann's link: %q", path, body)
		}
	}
	tab.Open(e.base + "/links?q=anns")
	if got := tab.Text(".empty h2"); !strings.Contains(got, "No links match") {
		t.Errorf("bob's search for Ann's alias shows %q", got)
	}

	bob := e.client()
	bob.signIn("bob")
	tok := bob.token("/links")
	for _, p := range []struct {
		path string
		form url.Values
	}{
		{fmt.Sprintf("/links/%d/edit", l.ID), url.Values{"csrf": {tok}, "url": {"https://bob.example/"}, "status": {"public"}}},
		{fmt.Sprintf("/links/%d/delete", l.ID), url.Values{"csrf": {tok}}},
	} {
		if r := bob.post(p.path, p.form); r.status != http.StatusNotFound {
			t.Errorf("bob posts %s: status %d, want 404", p.path, r.status)
		}
	}
	got, err := e.store.LinkByID(context.Background(), ann.ID, l.ID)
	if err != nil || got.LongURL != "https://example.com/anns-secret-page" || got.Status != "private" {
		t.Fatalf("Ann's link after Bob's requests: %+v, %v", got, err)
	}
}

package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kurz/admin/internal/api"
	"kurz/shared/link"
)

// TestCSRFRefused: every state-changing request without the token of its
// own session, or sent by a browser from another site, is refused with
// 403 and changes nothing; with the right token the same request works.
func TestCSRFRefused(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	l := e.link(ann, map[string]string{"url": "https://example.com/keep"})
	ctx := context.Background()
	ov, err := e.api.AddOverlay(ctx, ann, &api.OverlayInput{Name: ptr("keep")})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := e.api.AddSplash(ctx, ann, &api.SplashInput{Name: ptr("keep")})
	if err != nil {
		t.Fatal(err)
	}
	dom, err := e.api.AddDomain(ctx, ann, domainIn("https://go.example.com", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	c := e.client()
	c.signIn("ann")
	good := c.token("/links")
	other := e.client()
	other.signIn("ann") // the same account, another session
	otherToken := other.token("/links")
	visitor := e.client()
	visitorToken := visitor.token("/login") // a token made before any sign-in

	forged := []struct {
		name   string
		token  string
		header map[string]string
	}{
		{"no token", "", nil},
		{"wrong token", "AAAA", nil},
		{"token of another session", otherToken, nil},
		{"token of a signed-out visitor", visitorToken, nil},
		{"right token, cross-site browser request", good, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"right token, foreign origin", good, map[string]string{"Origin": "https://evil.example"}},
	}
	posts := []struct {
		path string
		form url.Values
	}{
		{fmt.Sprintf("/links/%d/delete", l.ID), url.Values{}},
		{"/links/delete", url.Values{"id": {fmt.Sprint(l.ID)}}},
		{fmt.Sprintf("/links/%d/edit", l.ID), url.Values{"url": {"https://evil.example/"}}},
		{"/links/new", url.Values{"url": {"https://evil.example/new"}}},
		{"/account/email", url.Values{"email": {"evil@example.com"}, "current": {testPassword}}},
		{"/account/password", url.Values{"current": {testPassword}, "new": {"evil password 1"}, "confirm": {"evil password 1"}}},
		{"/account/key", url.Values{}},
		{"/logout", url.Values{}},
		{"/overlays/new", url.Values{"name": {"evil"}}},
		{fmt.Sprintf("/overlays/%d/edit", ov), url.Values{"name": {"evil"}}},
		{fmt.Sprintf("/overlays/%d/delete", ov), url.Values{}},
		{"/splash/new", url.Values{"name": {"evil"}, "counter": {"1"}}},
		{fmt.Sprintf("/splash/%d/edit", sp), url.Values{"name": {"evil"}, "counter": {"1"}}},
		{fmt.Sprintf("/splash/%d/delete", sp), url.Values{}},
		{fmt.Sprintf("/domains/%d/edit", dom), url.Values{"redirectroot": {"https://evil.example/"}}},
	}
	for _, f := range forged {
		for _, p := range posts {
			form := url.Values{}
			for k, v := range p.form {
				form[k] = v
			}
			if f.token != "" {
				form.Set("csrf", f.token)
			}
			r := c.do(http.MethodPost, p.path, form, f.header)
			if r.status != http.StatusForbidden || !strings.Contains(r.body, "This form has expired") {
				t.Errorf("%s: POST %s: status %d", f.name, p.path, r.status)
			}
		}
	}
	// Nothing changed: the link, the account, the session.
	got, err := e.store.LinkByID(context.Background(), ann.ID, l.ID)
	if err != nil || got.LongURL != "https://example.com/keep" {
		t.Fatalf("link after forged requests: %+v, %v", got, err)
	}
	if n, _ := e.store.CountLinks(context.Background(), ann.ID); n != 1 {
		t.Errorf("%d links after forged requests", n)
	}
	if o, err := e.store.OverlayByID(ctx, ann.ID, ov); err != nil || o.Name != "keep" {
		t.Errorf("overlay after forged requests: %+v %v", o, err)
	}
	if p, err := e.store.SplashPageByID(ctx, ann.ID, sp); err != nil || p.Name != "keep" {
		t.Errorf("splash page after forged requests: %+v %v", p, err)
	}
	if d, err := e.store.DomainByID(ctx, ann.ID, dom); err != nil || d.RedirectRoot != "" {
		t.Errorf("domain after forged requests: %+v %v", d, err)
	}
	if n := len(e.overlaysOf(ann.ID)); n != 1 {
		t.Errorf("%d overlays after forged requests", n)
	}
	if u, _, err := e.store.LoginUser(context.Background(), "ann@example.com"); err != nil || u.ID != ann.ID {
		t.Errorf("email changed by a forged request: %v", err)
	}
	if r := c.get("/links"); r.status != http.StatusOK {
		t.Fatalf("the session ended by a forged sign-out: %d", r.status)
	}
	// Sign-in and sign-up forms need their token too (login CSRF).
	anon := e.client()
	anon.token("/login")
	if r := anon.post("/login", url.Values{"login": {"ann"}, "password": {testPassword}}); r.status != http.StatusForbidden {
		t.Errorf("sign-in without token: status %d", r.status)
	}
	if r := anon.post("/signup", url.Values{"email": {"x@example.com"}, "username": {"xyz"}, "password": {testPassword}}); r.status != http.StatusForbidden {
		t.Errorf("sign-up without token: status %d", r.status)
	}

	// The same request with the session's own token goes through.
	r := c.post(fmt.Sprintf("/links/%d/delete", l.ID), url.Values{"csrf": {good}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("delete with the right token: status %d", r.status)
	}
	if n, _ := e.store.CountLinks(context.Background(), ann.ID); n != 0 {
		t.Errorf("%d links after the delete", n)
	}
}

// overlaysOf are the user's overlays.
func (e *env) overlaysOf(userID int64) []link.Overlay {
	e.t.Helper()
	os, _, err := e.store.ListOverlays(context.Background(), userID, 100, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	return os
}

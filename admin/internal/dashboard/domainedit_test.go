package dashboard

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kurz/admin/internal/api"
	"kurz/shared/link"
)

// Editing a branded domain's redirects through api.Server.UpdateDomain:
// stored as the API stores them, emptied ones removed, the API's refusals
// on their fields with the typed values kept, another user's domain 404,
// CSRF.
func TestDomainEdit(t *testing.T) {
	e := newEnv(t)
	ann, _ := e.user("ann"), e.user("bob")
	ctx := context.Background()
	id, err := e.api.AddDomain(ctx, ann, domainIn("https://go.example.com", "https://example.com", ""))
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.api.AddDomain(ctx, ann, domainIn("https://to.example.net", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	c := e.client()
	c.signIn("ann")
	edit := fmt.Sprintf("/domains/%d/edit", id)
	form := c.get(edit)
	for _, s := range []string{"Redirects of go.example.com", `value="https://example.com"`, "go.example.com. CNAME sho.rt.", `action="` + edit + `"`} {
		if !strings.Contains(form.body, s) {
			t.Errorf("edit form lacks %q", s)
		}
	}
	if strings.Contains(form.body, `name="domain"`) {
		t.Error("the edit form offers to change the address")
	}
	if !strings.Contains(c.get("/domains").body, `href="`+edit+`"`) {
		t.Error("no edit link in the list")
	}
	tok := c.token(edit)
	stored := func() link.Domain {
		d, err := e.store.DomainByID(ctx, ann.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	xss := `https://example.com/"><script>alert(1)</script>`
	for _, tt := range []struct {
		name, root, nf, field string
	}{
		{"root loop", "https://go.example.com/", "", "redirectroot"},
		{"404 on itself", "", "https://go.example.com/missing", "redirect404"},
		{"not a URL", "javascript:alert(1)", "", "redirectroot"},
		{"markup", "", xss + " x", "redirect404"},
	} {
		p := c.post(edit, url.Values{"csrf": {tok}, "redirectroot": {tt.root}, "redirect404": {tt.nf}})
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="f-`+tt.field+`-error"`) {
			t.Errorf("%s: %d %s", tt.name, p.status, errorsOf(p.body))
		}
		if strings.Contains(p.body, "<script>alert") {
			t.Errorf("%s: markup not escaped", tt.name)
		}
		for _, v := range []string{tt.root, tt.nf} {
			if v != "" && !strings.Contains(p.body, `value="`+html.EscapeString(v)+`"`) {
				t.Errorf("%s: typed %q not kept", tt.name, v)
			}
		}
	}
	// A loop through another of the user's domains.
	if _, err := e.api.AddDomain(ctx, ann, domainIn("https://back.example.org", "https://go.example.com", "")); err != nil {
		t.Fatal(err)
	}
	if p := c.post(edit, url.Values{"csrf": {tok}, "redirectroot": {"https://back.example.org"}, "redirect404": {""}}); p.status != http.StatusBadRequest ||
		!strings.Contains(p.body, `id="f-redirectroot-error"`) {
		t.Errorf("loop through another domain: %d %s", p.status, errorsOf(p.body))
	}
	if d := stored(); d.RedirectRoot != "https://example.com" || d.Redirect404 != "" {
		t.Fatalf("refused edits wrote %+v", d)
	}
	if p := c.post(edit, url.Values{"redirectroot": {""}, "redirect404": {"https://evil.example"}}); p.status != http.StatusForbidden {
		t.Errorf("no token: %d", p.status)
	}
	b := e.client()
	b.signIn("bob")
	btok := b.token("/domains/new")
	for _, path := range []string{edit, fmt.Sprintf("/domains/%d/edit", other), "/domains/999999/edit", "/domains/abc/edit"} {
		if p := b.get(path); p.status != http.StatusNotFound || strings.Contains(p.body, "go.example.com") {
			t.Errorf("bob GET %s: %d", path, p.status)
		}
		if p := b.post(path, url.Values{"csrf": {btok}, "redirectroot": {""}, "redirect404": {"https://evil.example"}}); p.status != http.StatusNotFound {
			t.Errorf("bob POST %s: %d", path, p.status)
		}
	}
	if d := stored(); d.RedirectRoot != "https://example.com" || d.Redirect404 != "" {
		t.Fatalf("forged edits wrote %+v", d)
	}
	// Saved: the root emptied (removed), the 404 set.
	p := c.post(edit, url.Values{"csrf": {tok}, "redirectroot": {"  "}, "redirect404": {" https://example.com/not-found "}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", p.status, errorsOf(p.body))
	}
	if d := stored(); d.RedirectRoot != "" || d.Redirect404 != "https://example.com/not-found" || d.Domain != "https://go.example.com" {
		t.Fatalf("after the edit %+v", d)
	}
}

// domainIn is the API's domain payload.
func domainIn(domain, root, nf string) *api.DomainInput {
	return &api.DomainInput{Domain: &domain, RedirectRoot: &root, Redirect404: &nf}
}

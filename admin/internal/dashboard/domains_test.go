package dashboard

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kurz/shared/config"
	"kurz/shared/link"
)

// Branded domains through api.Server.AddDomain / DeleteDomain: the DNS
// record to create, the API's refusals on their fields, a domain in use
// kept, another user's id 404.

func TestDomainPages(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.DomainDNS = "CNAME edge.kurz.example." })
	ann := e.user("ann")
	c := e.client()
	c.signIn("ann")
	if p := c.get("/domains"); !strings.Contains(p.body, "No branded domains yet") {
		t.Fatalf("empty list: %d", p.status)
	}
	form := c.get("/domains/new")
	if !strings.Contains(form.body, "go.example.com. CNAME edge.kurz.example.") {
		t.Fatal("the form lacks the operator's DNS record")
	}
	tok := c.token("/domains/new")
	p := c.post("/domains/new", url.Values{"csrf": {tok}, "domain": {"HTTPS://Go.Example.com:443/"}, "redirectroot": {"https://example.com"}, "redirect404": {""}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("add: %d %s", p.status, errorsOf(p.body))
	}
	ds, _, err := e.store.ListDomains(context.Background(), ann.ID, 10, 0)
	if err != nil || len(ds) != 1 || ds[0].Domain != "https://go.example.com" || ds[0].RedirectRoot != "https://example.com" {
		t.Fatalf("stored %+v %v", ds, err)
	}
	list := c.get("/domains")
	for _, s := range []string{"https://go.example.com", "go.example.com CNAME edge.kurz.example.", "https://example.com"} {
		if !strings.Contains(list.body, s) {
			t.Errorf("list lacks %q", s)
		}
	}
	// In use: refused on the confirmation page, kept.
	l := e.link(ann, map[string]string{"url": "https://example.com/x", "domain": "https://go.example.com"})
	del := fmt.Sprintf("/domains/%d/delete", ds[0].ID)
	if p := c.post(del, url.Values{"csrf": {tok}}); p.status != http.StatusConflict || !strings.Contains(p.body, "1 short links use it; delete or move them first.") {
		t.Fatalf("delete in use: %d %s", p.status, p.body[:0])
	}
	if err := e.store.DeleteLink(context.Background(), ann.ID, l.ID); err != nil {
		t.Fatal(err)
	}
	if p := c.post(del, url.Values{"csrf": {"forged"}}); p.status != http.StatusForbidden {
		t.Fatalf("forged: %d", p.status)
	}
	if p := c.post(del, url.Values{"csrf": {tok}}); p.status != http.StatusSeeOther {
		t.Fatalf("delete: %d", p.status)
	}
	if _, n, _ := e.store.ListDomains(context.Background(), ann.ID, 10, 0); n != 0 {
		t.Fatal("domain still there")
	}
}

func TestDomainErrorsAndOtherUser(t *testing.T) {
	e := newEnv(t)
	ann, bob := e.user("ann"), e.user("bob")
	bobs, err := e.store.CreateDomain(context.Background(), link.Domain{UserID: bob.ID, Host: "bob.example", Domain: "https://bob.example"})
	if err != nil {
		t.Fatal(err)
	}
	c := e.client()
	c.signIn("ann")
	if p := c.get("/domains/new"); !strings.Contains(p.body, "CNAME sho.rt.") {
		t.Error("without KURZ_DOMAIN_DNS the form does not name the default domain")
	}
	tok := c.token("/domains/new")
	xss := `https://x.example/"><script>alert(1)</script>`
	for _, tc := range []struct {
		form   url.Values
		field  string
		status int
	}{
		{url.Values{"domain": {""}}, "domain", http.StatusBadRequest},
		{url.Values{"domain": {"https://go.example.com/path"}}, "domain", http.StatusBadRequest},
		{url.Values{"domain": {"https://sho.rt"}}, "domain", http.StatusBadRequest},
		{url.Values{"domain": {"https://bob.example"}}, "domain", http.StatusConflict},
		{url.Values{"domain": {"https://go.example.com"}, "redirectroot": {"https://go.example.com/"}}, "redirectroot", http.StatusBadRequest},
		{url.Values{"domain": {"https://go.example.com"}, "redirect404": {"javascript:alert(1)"}}, "redirect404", http.StatusBadRequest},
		{url.Values{"domain": {xss}}, "domain", http.StatusBadRequest},
	} {
		tc.form.Set("csrf", tok)
		p := c.post("/domains/new", tc.form)
		if p.status != tc.status || !strings.Contains(p.body, `id="f-`+tc.field+`-error"`) {
			t.Errorf("%v: %d %s", tc.form, p.status, errorsOf(p.body))
		}
		if strings.Contains(p.body, "<script>alert(1)") {
			t.Error("markup not escaped")
		}
		if tc.form.Get("domain") == xss && !strings.Contains(p.body, html.EscapeString(xss)) {
			t.Error("typed domain not kept")
		}
	}
	if _, n, _ := e.store.ListDomains(context.Background(), ann.ID, 10, 0); n != 0 {
		t.Fatalf("refused forms wrote %d domains", n)
	}
	del := fmt.Sprintf("/domains/%d/delete", bobs)
	if p := c.get(del); p.status != http.StatusNotFound || strings.Contains(p.body, "bob.example") {
		t.Errorf("GET %s: %d", del, p.status)
	}
	if p := c.post(del, url.Values{"csrf": {tok}}); p.status != http.StatusNotFound {
		t.Errorf("POST %s: %d", del, p.status)
	}
	if _, n, _ := e.store.ListDomains(context.Background(), bob.ID, 10, 0); n != 1 {
		t.Fatal("Bob's domain deleted")
	}
}

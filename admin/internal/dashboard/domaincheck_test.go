package dashboard

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"kurz/admin/internal/dnscheck/dnstest"
	"kurz/shared/config"
)

// TestDomainCheck: the domain page's "Check DNS" against a real DNS
// exchange (a local server, KURZ_DNS_SERVER): each verdict in words on the
// page, CSRF, another user's domain 404, and an operator record the check
// cannot compare.
func TestDomainCheck(t *testing.T) {
	ip := netip.MustParseAddr
	dns := dnstest.Start(t, dnstest.Zone{
		"edge.kurz.test":  {Addrs: []netip.Addr{ip("192.0.2.10")}},
		"go.brand.test":   {CNAME: "edge.kurz.test"},
		"flat.brand.test": {Addrs: []netip.Addr{ip("192.0.2.10")}},
		"away.brand.test": {Addrs: []netip.Addr{ip("198.51.100.4")}},
		"sick.brand.test": {ServFail: true},
	})
	e := newEnv(t, func(c *config.Config) { c.DomainDNS, c.DNSServer = "CNAME edge.kurz.test.", dns.Addr })
	ann, bob := e.user("ann"), e.user("bob")
	ctx := context.Background()
	c := e.client()
	c.signIn("ann")
	tok := c.token("/domains/new")
	tests := []struct {
		domain string
		status int
		want   []string
	}{
		{"https://go.brand.test", http.StatusOK, []string{"notice-ok", "go.brand.test points here", "Its CNAME leads to edge.kurz.test."}},
		{"https://flat.brand.test", http.StatusOK, []string{"notice-ok", "flat.brand.test points here", "resolves to 192.0.2.10, an address of this service"}},
		{"https://away.brand.test", http.StatusOK, []string{"notice-error", "away.brand.test points elsewhere", "198.51.100.4, not to this service (192.0.2.10)"}},
		{"https://new.brand.test", http.StatusOK, []string{"notice-warn", "new.brand.test has no DNS record yet"}},
		{"https://sick.brand.test", http.StatusOK, []string{"notice-info", "The check could not tell", "The lookup of sick.brand.test failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.domain, func(t *testing.T) {
			id, err := e.api.AddDomain(ctx, ann, domainIn(tt.domain, "", ""))
			if err != nil {
				t.Fatal(err)
			}
			path := fmt.Sprintf("/domains/%d", id)
			if p := c.get(path + "/edit"); !strings.Contains(p.body, `action="`+path+`/check"`) || strings.Contains(p.body, "dns-check\"") {
				t.Fatal("the page has no check button, or a result before any check")
			}
			if p := c.post(path+"/check", url.Values{"csrf": {"forged"}}); p.status != http.StatusForbidden {
				t.Fatalf("without the token: %d", p.status)
			}
			p := c.post(path+"/check", url.Values{"csrf": {tok}})
			if p.status != tt.status {
				t.Fatalf("status %d", p.status)
			}
			body := html.UnescapeString(p.body)
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("result lacks %q", w)
				}
			}
			if !strings.Contains(body, "Check again") {
				t.Error("no button to check again")
			}
		})
	}

	// Bob's domain through Ann's session: the same 404 as everywhere.
	bobs, err := e.api.AddDomain(ctx, bob, domainIn("https://bob.brand.test", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	if p := c.post(fmt.Sprintf("/domains/%d/check", bobs), url.Values{"csrf": {tok}}); p.status != http.StatusNotFound || strings.Contains(p.body, "bob.brand.test") {
		t.Fatalf("another user's domain: %d", p.status)
	}

	// An operator record the check cannot compare says so.
	odd := newEnv(t, func(c *config.Config) { c.DomainDNS, c.DNSServer = "Use our anycast addresses", dns.Addr })
	cara := odd.user("cara")
	id, err := odd.api.AddDomain(ctx, cara, domainIn("https://odd.brand.test", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	oc := odd.client()
	oc.signIn("cara")
	if p := oc.post(fmt.Sprintf("/domains/%d/check", id), url.Values{"csrf": {oc.token("/domains/new")}}); p.status != http.StatusOK || !strings.Contains(p.body, "This record cannot be checked here") {
		t.Fatalf("unparsable operator record: %d", p.status)
	}
}

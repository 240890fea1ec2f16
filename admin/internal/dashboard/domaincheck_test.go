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
		"edge.kurz.net":  {Addrs: []netip.Addr{ip("192.0.2.10")}},
		"go.brand.net":   {CNAME: "edge.kurz.net"},
		"flat.brand.net": {Addrs: []netip.Addr{ip("192.0.2.10")}},
		"away.brand.net": {Addrs: []netip.Addr{ip("198.51.100.4")}},
		"sick.brand.net": {ServFail: true},
		"lan.brand.net":  {Addrs: []netip.Addr{ip("10.1.2.3")}},
	})
	e := newEnv(t, func(c *config.Config) { c.DomainDNS, c.DNSServer = "CNAME edge.kurz.net.", dns.Addr })
	ann, bob := e.user("ann"), e.user("bob")
	ctx := context.Background()
	c := e.client()
	c.signIn("ann")
	tok := c.token("/domains/new")
	tests := []struct {
		domain string
		want   []string
	}{
		{"https://go.brand.net", []string{"notice-ok", "go.brand.net points here", "Its CNAME leads to edge.kurz.net."}},
		{"https://flat.brand.net", []string{"notice-ok", "flat.brand.net points here", "resolves to 192.0.2.10, an address of this service"}},
		{"https://away.brand.net", []string{"notice-error", "away.brand.net points elsewhere", "198.51.100.4, not to this service (192.0.2.10)"}},
		{"https://lan.brand.net", []string{"notice-error", "lan.brand.net points elsewhere", "resolves to a private address, not"}},
		{"https://new.brand.net", []string{"notice-warn", "new.brand.net has no DNS record yet"}},
		{"https://sick.brand.net", []string{"notice-info", "The check could not tell", "The lookup of sick.brand.net failed: the DNS server failed to answer"}},
		{"https://postgres", []string{"notice-info", "The check could not tell", "A name without a dot is not a public DNS name"}},
	}
	for i, tt := range tests {
		t.Run(tt.domain, func(t *testing.T) {
			// A user each: one user may check once every few seconds.
			name := fmt.Sprintf("user%d", i)
			u := e.user(name)
			uc := e.client()
			uc.signIn(name)
			utok := uc.token("/domains/new")
			id, err := e.api.AddDomain(ctx, u, domainIn(tt.domain, "", ""))
			if err != nil {
				t.Fatal(err)
			}
			path := fmt.Sprintf("/domains/%d", id)
			if p := uc.get(path + "/edit"); !strings.Contains(p.body, `action="`+path+`/check"`) || strings.Contains(p.body, "dns-check\"") {
				t.Fatal("the page has no check button, or a result before any check")
			}
			if p := uc.post(path+"/check", url.Values{"csrf": {"forged"}}); p.status != http.StatusForbidden {
				t.Fatalf("without the token: %d", p.status)
			}
			p := uc.post(path+"/check", url.Values{"csrf": {utok}})
			if p.status != http.StatusOK {
				t.Fatalf("status %d", p.status)
			}
			body := html.UnescapeString(p.body)
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("result lacks %q", w)
				}
			}
			if strings.Contains(body, "10.1.2.3") || !strings.Contains(body, "Check again") {
				t.Error("a private address spelled out, or no button to check again")
			}
		})
	}

	// Ann checks twice in a row: the second waits (429), no lookup made.
	id, err := e.api.AddDomain(ctx, ann, domainIn("https://go2.brand.net", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	check := fmt.Sprintf("/domains/%d/check", id)
	if p := c.post(check, url.Values{"csrf": {tok}}); p.status != http.StatusOK {
		t.Fatalf("first check: %d", p.status)
	}
	asked := dns.Queries()
	p := c.post(check, url.Values{"csrf": {tok}})
	if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") == "" || !strings.Contains(p.body, "Checked a moment ago") {
		t.Fatalf("second check at once: %d", p.status)
	}
	if dns.Queries() != asked {
		t.Error("the refused check asked the DNS server")
	}
	// Every slot taken by others: Bob is told the server is busy.
	for range cap(e.dash.dnsSlots) {
		e.dash.dnsSlots <- struct{}{}
	}
	bc := e.client()
	bc.signIn("bob")
	bobs, err := e.api.AddDomain(ctx, bob, domainIn("https://bob.brand.net", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	if p := bc.post(fmt.Sprintf("/domains/%d/check", bobs), url.Values{"csrf": {bc.token("/domains/new")}}); p.status != http.StatusTooManyRequests || !strings.Contains(p.body, "Too many checks are running") {
		t.Fatalf("all slots taken: %d", p.status)
	}
	for range cap(e.dash.dnsSlots) {
		<-e.dash.dnsSlots
	}

	// Bob's domain through Ann's session: the same 404 as everywhere.
	if p := c.post(fmt.Sprintf("/domains/%d/check", bobs), url.Values{"csrf": {tok}}); p.status != http.StatusNotFound || strings.Contains(p.body, "bob.brand.net") {
		t.Fatalf("another user's domain: %d", p.status)
	}

	// An operator record the check cannot compare says so.
	odd := newEnv(t, func(c *config.Config) { c.DomainDNS, c.DNSServer = "Use our anycast addresses", dns.Addr })
	cara := odd.user("cara")
	id, err = odd.api.AddDomain(ctx, cara, domainIn("https://odd.brand.net", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	oc := odd.client()
	oc.signIn("cara")
	if p := oc.post(fmt.Sprintf("/domains/%d/check", id), url.Values{"csrf": {oc.token("/domains/new")}}); p.status != http.StatusOK || !strings.Contains(p.body, "This record cannot be checked here") {
		t.Fatalf("unparsable operator record: %d", p.status)
	}
}

package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"kurz/shared/browsertest"
	"kurz/shared/chstore"
	"kurz/shared/link"
)

// TestBrowserPasswordPages: a password link's form, the wrong-password
// answer and the throttled form ("too many attempts") as a visitor sees
// them, on a desktop and on a phone.
func TestBrowserPasswordPages(t *testing.T) {
	_, base := browserEnvWithLink(t, func(c *Config) { c.PasswordAttempts = 1 })
	tab := browsertest.NewTab(t)
	submit := func(pw string) {
		t.Helper()
		browsertest.Eval[bool](tab, `(() => {
			document.querySelector("input[type=password]").value = `+"`"+pw+"`"+`;
			document.querySelector("form").submit();
			return true;
		})()`)
		time.Sleep(700 * time.Millisecond) // the form posts to the same URL
		tab.WaitVisible("main")
	}
	if st := tab.Open(base + "/locked-page"); st != 200 {
		t.Fatalf("form: status %d", st)
	}
	tab.WaitVisible("input[type=password]")
	expectNoSidewaysOverflow(t, tab)
	tab.Screenshot("form")

	submit("wrong")
	if body := tab.Text("main"); !strings.Contains(strings.ToLower(body), "wrong") && !strings.Contains(strings.ToLower(body), "incorrect") {
		t.Errorf("after a wrong password the page says %q", body)
	}
	tab.Screenshot("wrong")

	submit("wrong again")
	if body := strings.ToLower(tab.Text("main")); !strings.Contains(body, "too many") {
		t.Errorf("after the limit the page says %q", body)
	}
	tab.Screenshot("throttled")
	tab.Viewport(375, 740)
	expectNoSidewaysOverflow(t, tab)
	tab.Screenshot("throttled-phone")
}

// TestBrowserCampaignList: a public campaign's list page with titled and
// untitled links, on a desktop and on a phone.
func TestBrowserCampaignList(t *testing.T) {
	e, base := browserEnv(t)
	camp := e.id(`INSERT INTO campaigns (user_id, name, slug, public) VALUES ($1, 'Spring launch week', 'spring', true) RETURNING id`, e.user)
	e.addLink(linkRow{Alias: "sl1", URL: "https://example.com/1", MetaTitle: "Our new collection", CampaignID: &camp})
	e.addLink(linkRow{Alias: "sl2", URL: longDest, CampaignID: &camp})
	e.addLink(linkRow{Alias: "sl3", URL: "https://example.com/3", CampaignID: &camp, Private: true})
	tab := browsertest.NewTab(t)
	if st := tab.Open(base + "/u/alice/spring"); st != 200 {
		t.Fatalf("status %d", st)
	}
	body := tab.Text("main")
	for _, want := range []string{"Spring launch week", "Our new collection", base + "/sl2"} {
		if !strings.Contains(body, want) {
			t.Errorf("list page lacks %q: %q", want, body)
		}
	}
	if strings.Contains(body, "/sl3") {
		t.Error("a private link is listed")
	}
	expectNoSidewaysOverflow(t, tab)
	tab.Screenshot("desktop")
	tab.Viewport(375, 740)
	expectNoSidewaysOverflow(t, tab)
	tab.Screenshot("phone")
}

// browserEnvWithLink is browserEnv with a password link "locked-page".
func browserEnvWithLink(t *testing.T, opts ...envOption) (*env, string) {
	t.Helper()
	e, base := browserEnv(t, opts...)
	e.addLink(linkRow{Alias: "locked-page", URL: "https://example.com/secret", Password: "right", MetaTitle: "Team plans"})
	return e, base
}

// TestBrowserStatsPageStates: the stats page of a public link nobody has
// clicked yet (an empty state must say so in words) and the page while
// ClickHouse cannot be read, on a desktop and on a phone.
func TestBrowserStatsPageStates(t *testing.T) {
	t.Run("never clicked", func(t *testing.T) {
		e, base := browserEnv(t, func(c *Config) {
			c.LinkStats = func(context.Context, int64) (*chstore.Summary, error) { return &chstore.Summary{}, nil }
		})
		e.addLink(linkRow{Alias: "fresh", URL: "https://example.com/new", MetaTitle: "Brand new"})
		tab := browsertest.NewTab(t)
		if st := tab.Open(base + "/fresh+"); st != 200 {
			t.Fatalf("status %d", st)
		}
		if clicks := tab.Text("#clicks"); clicks != "0" {
			t.Errorf("clicks show %q", clicks)
		}
		tab.Screenshot("desktop")
		tab.Viewport(375, 740)
		expectNoSidewaysOverflow(t, tab)
		tab.Screenshot("phone")
	})
	t.Run("statistics unavailable", func(t *testing.T) {
		e, base := browserEnv(t, func(c *Config) {
			c.LinkStats = func(context.Context, int64) (*chstore.Summary, error) {
				return nil, fmt.Errorf("read click totals: %w: connection refused", link.ErrUnavailable)
			}
		})
		e.addLink(linkRow{Alias: "down", URL: "https://example.com/"})
		tab := browsertest.NewTab(t)
		if st := tab.Open(base + "/down+"); st != 503 {
			t.Fatalf("status %d, want 503", st)
		}
		if body := tab.Text("main"); !strings.Contains(body, "temporarily unavailable") || strings.Contains(body, "connection refused") {
			t.Errorf("unavailable page says %q", body)
		}
		tab.Screenshot("desktop")
		tab.Viewport(375, 740)
		tab.Screenshot("phone")
	})
}

package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"kurz/shared/browsertest"
	"kurz/shared/click"
	"kurz/shared/link"
	"kurz/shared/secret"
)

// The dashboard as a marketer uses it: Debian's Chromium against the real
// admin handler (API and dashboard), PostgreSQL and ClickHouse.

// TestBrowserLinkLifecycle: sign up, create a link, find it in the table
// with its clicks from ClickHouse, edit it (a refused edit keeps what was
// typed), delete it.
func TestBrowserLinkLifecycle(t *testing.T) {
	e := newEnv(t)
	tab := browsertest.NewTab(t)
	tab.Viewport(1440, 900)

	e.signUp(tab, "maria")
	key := tab.Attr("#api-key", "value")
	u, err := e.store.UserByKeyHash(context.Background(), secret.HashAPIKey(key))
	if err != nil || u.Username != "maria" || u.Plan != "free" {
		t.Fatalf("the key shown does not open the new account: %v %v", u, err)
	}
	if !browsertest.Eval[bool](tab, `!document.querySelector("[data-copy]").hidden`) {
		t.Error("the copy button stayed hidden: the script did not run")
	}

	tab.ClickNavigate("main a[href='/links/new']")
	tab.SetValue("#f-url", "https://example.com/launch?utm_source=newsletter")
	tab.SetValue("#f-custom", "launch")
	tab.SetValue("#f-metatitle", "Launch day")
	if st := tab.ClickNavigate("main form button[type=submit]"); st != http.StatusOK || tab.URL() != e.base+"/links" {
		t.Fatalf("create: status %d at %s: %s", st, tab.URL(), tab.Text("main"))
	}
	if got := tab.Text(".notice-ok"); !strings.Contains(got, "Link created.") || !strings.Contains(got, "http://sho.rt/launch") {
		t.Errorf("after create the notice says %q", got)
	}
	l, err := e.store.FindLink(context.Background(), u.ID, "", "launch", false)
	if err != nil || l.LongURL != "https://example.com/launch?utm_source=newsletter" || l.MetaTitle != "Launch day" {
		t.Fatalf("stored link %+v, %v", l, err)
	}
	row := fmt.Sprintf("tr[data-id='%d']", l.ID)
	wantRow(t, tab, row, "sho.rt/launch", "https://example.com/launch?utm_source=newsletter", "Launch day", "0", "0")

	insertClicks(t, e, []click.Row{humanClick(l, 1), humanClick(l, 1), humanClick(l, 2)})
	tab.Open(e.base + "/links")
	wantRow(t, tab, row, "sho.rt/launch", "https://example.com/launch?utm_source=newsletter", "Launch day", "3", "2")

	tab.ClickNavigate(row + " a[href$='/edit']")
	if got := tab.Attr("#f-metatitle", "value"); got != "Launch day" {
		t.Errorf("edit form shows title %q", got)
	}
	tab.SetValue("#f-metatitle", "Launch day, final")
	tab.SetValue("#f-url", "javascript:alert(document.cookie)")
	if st := tab.ClickNavigate("main form button[type=submit]"); st != http.StatusBadRequest {
		t.Fatalf("a refused edit: status %d", st)
	}
	if got := tab.Text("#f-url-error"); !strings.Contains(got, "Must be an absolute http or https URL") {
		t.Errorf("url error %q", got)
	}
	if got := tab.Attr("#f-metatitle", "value"); got != "Launch day, final" {
		t.Errorf("the refused form lost the title typed: %q", got)
	}
	if got := tab.Attr("#f-url", "aria-describedby"); got != "f-url-error" {
		t.Errorf("the url field is described by %q", got)
	}
	tab.SetValue("#f-url", "https://example.com/launch-v2")
	tab.ClickNavigate("main form button[type=submit]")
	if got := tab.Text(".notice-ok"); !strings.Contains(got, "Changes saved.") {
		t.Errorf("after edit the notice says %q", got)
	}
	wantRow(t, tab, row, "sho.rt/launch", "https://example.com/launch-v2", "Launch day, final", "3", "2")

	tab.ClickNavigate(row + " a[href$='/delete']")
	if got := tab.Text("main h1"); got != "Delete this link?" {
		t.Fatalf("delete page heading %q", got)
	}
	tab.ClickNavigate("main form button[type=submit]")
	if got := tab.Text(".notice-ok"); !strings.Contains(got, "deleted") {
		t.Errorf("after delete the notice says %q", got)
	}
	if got := tab.Text(".empty h2"); got != "No links yet" {
		t.Errorf("empty state %q", got)
	}
	if _, err := e.store.LinkByID(context.Background(), u.ID, l.ID); !errors.Is(err, link.ErrNotFound) {
		t.Errorf("the link is still stored: %v", err)
	}
}

// wantRow checks the cells of a table row.
func wantRow(t *testing.T, tab *browsertest.Tab, row, short, dest, title, clicks, unique string) {
	t.Helper()
	for sel, want := range map[string]string{
		row + " .short a": short, row + " .dest": dest, row + " .title": title,
		row + " .clicks": clicks, row + " .unique": unique,
	} {
		if got := tab.Text(sel); got != want {
			t.Errorf("%s shows %q, want %q", sel, got, want)
		}
	}
}

// humanClick is a counted visit of l by visitor v.
func humanClick(l *link.Link, v uint64) click.Row {
	return click.Row{ClickID: uint64(time.Now().UnixNano()) + v*7919, UnixNano: time.Now().UnixNano(), Kind: click.KindLink,
		Class: click.ClassHuman, LinkID: uint64(l.ID), OwnerID: uint64(l.UserID), Visitor: v,
		Country: "DE", Browser: "Chrome", OS: "Windows", Device: "desktop"}
}

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

// Channels through api.Server.AddChannel / UpdateChannel / DeleteChannel /
// AssignChannel: items of all three kinds, errors on their fields,
// another user's ids 404.

func TestChannelPages(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	c := e.client()
	c.signIn("ann")
	if p := c.get("/channels"); !strings.Contains(p.body, "No channels yet") {
		t.Fatalf("empty list: %d", p.status)
	}
	tok := c.token("/channels/new")
	p := c.post("/channels/new", url.Values{"csrf": {tok}, "name": {"Clients"}, "description": {"per client"}, "color": {"#2563eb"}, "starred": {"1"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("add: %d %s", p.status, errorsOf(p.body))
	}
	cs, _, err := e.store.ListChannels(context.Background(), ann.ID, 10, 0)
	if err != nil || len(cs) != 1 || cs[0].Name != "Clients" || cs[0].Color != "#2563EB" || !cs[0].Starred || cs[0].Description != "per client" {
		t.Fatalf("stored %+v %v", cs, err)
	}
	ch := cs[0]
	path := fmt.Sprintf("/channels/%d", ch.ID)
	if page := c.get(path); !strings.Contains(page.body, "Nothing in this channel yet") {
		t.Fatal("empty channel")
	}

	l := e.link(ann, map[string]string{"url": "https://example.com/chan-link"})
	bioID, err := e.store.CreateBioPage(context.Background(), link.BioPage{UserID: ann.ID, Title: "My bio", Alias: "mybio"})
	if err != nil {
		t.Fatal(err)
	}
	kind := "link"
	q, err := e.api.AddQR(context.Background(), ann, &api.QRInput{Type: &kind, Data: []byte(`"https://example.com/menu"`)})
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range []string{fmt.Sprintf("links:%d", l.ID), fmt.Sprintf("bio:%d", bioID), fmt.Sprintf("qr:%d", q.ID)} {
		if p := c.post(path+"/assign", url.Values{"csrf": {tok}, "item": {item}}); p.status != http.StatusSeeOther {
			t.Fatalf("assign %s: %d %s", item, p.status, errorsOf(p.body))
		}
	}
	page := c.get(path)
	for _, s := range []string{"https://example.com/chan-link", "My bio", "http://sho.rt/u/ann/bio/mybio", q.Name, "QR code", "Bio page"} {
		if !strings.Contains(page.body, s) {
			t.Errorf("channel page lacks %q", s)
		}
	}

	// Take the QR code out: the channel keeps the other two, the code stays.
	qrItem := fmt.Sprintf("qr:%d", q.ID)
	if !strings.Contains(page.body, `name="item" value="`+qrItem+`"`) {
		t.Fatal("no remove button for the QR code")
	}
	if p := c.post(path+"/remove", url.Values{"csrf": {"forged"}, "item": {qrItem}}); p.status != http.StatusForbidden {
		t.Fatalf("remove without token: %d", p.status)
	}
	if p := c.post(path+"/remove", url.Values{"csrf": {tok}, "item": {qrItem}}); p.status != http.StatusSeeOther {
		t.Fatalf("remove: %d %s", p.status, errorsOf(p.body))
	}
	page = c.get(path)
	if !strings.Contains(page.body, "Removed from") || strings.Contains(page.body, `name="item" value="`+qrItem+`"`) || !strings.Contains(page.body, `<p class="count">2 items</p>`) {
		t.Error("after remove, the page does not say so or still lists the QR code")
	}
	if got, err := e.store.QRByID(context.Background(), ann.ID, q.ID); err != nil || got.ChannelID != nil {
		t.Errorf("QR code after remove: %+v %v", got.ChannelID, err)
	}
	if p := c.post(path+"/remove", url.Values{"csrf": {tok}, "item": {qrItem}, "page": {"x"}}); p.status != http.StatusSeeOther || p.header.Get("Location") != path {
		t.Fatalf("second remove: %d to %q", p.status, p.header.Get("Location"))
	}
	if page := c.get(path); !strings.Contains(page.body, "no longer in") {
		t.Error("a stale remove does not say the item was already out")
	}
	for _, item := range []string{"", "qr:x", "evil:1"} {
		if p := c.post(path+"/remove", url.Values{"csrf": {tok}, "item": {item}}); p.status != http.StatusBadRequest {
			t.Errorf("remove %q: %d", item, p.status)
		}
	}

	edit := path + "/edit"
	if p := c.post(edit, url.Values{"csrf": {tok}, "name": {"Clients 2"}, "description": {""}, "color": {""}}); p.status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", p.status, errorsOf(p.body))
	}
	got, _ := e.store.ChannelByID(context.Background(), ann.ID, ch.ID)
	if got.Name != "Clients 2" || got.Color != "" || got.Starred || got.Description != "" {
		t.Fatalf("after edit %+v", got)
	}
	if p := c.post(path+"/delete", url.Values{"csrf": {"forged"}}); p.status != http.StatusForbidden {
		t.Fatalf("delete without token: %d", p.status)
	}
	if p := c.post(path+"/delete", url.Values{"csrf": {tok}}); p.status != http.StatusSeeOther {
		t.Fatalf("delete: %d", p.status)
	}
	if _, err := e.store.ChannelByID(context.Background(), ann.ID, ch.ID); err == nil {
		t.Fatal("channel still there")
	}
	if _, err := e.store.LinkByID(context.Background(), ann.ID, l.ID); err != nil {
		t.Fatalf("its link: %v", err)
	}
}

func TestChannelErrorsAndOtherUser(t *testing.T) {
	e := newEnv(t)
	ann, bob := e.user("ann"), e.user("bob")
	bobs, err := e.store.CreateChannel(context.Background(), link.Channel{UserID: bob.ID, Name: "Bob's"})
	if err != nil {
		t.Fatal(err)
	}
	bobLink := e.link(bob, map[string]string{"url": "https://example.com/bob"})
	c := e.client()
	c.signIn("ann")
	tok := c.token("/channels/new")
	xss := `<script>alert(1)</script>`
	p := c.post("/channels/new", url.Values{"csrf": {tok}, "name": {""}, "description": {xss}, "color": {"blue"}})
	if p.status != http.StatusBadRequest {
		t.Fatalf("status %d", p.status)
	}
	for _, id := range []string{"f-name-error", "f-color-error"} {
		if !strings.Contains(p.body, `id="`+id+`"`) {
			t.Errorf("no %s: %s", id, errorsOf(p.body))
		}
	}
	if strings.Contains(p.body, xss) || !strings.Contains(p.body, html.EscapeString(xss)) {
		t.Error("typed description not kept escaped")
	}
	c.post("/channels/new", url.Values{"csrf": {tok}, "name": {xss}})
	cs, _, _ := e.store.ListChannels(context.Background(), ann.ID, 10, 0)
	if len(cs) != 1 {
		t.Fatalf("%d channels", len(cs))
	}
	if l := c.get("/channels"); strings.Contains(l.body, xss) || !strings.Contains(l.body, html.EscapeString(xss)) {
		t.Fatal("stored markup is not escaped")
	}
	// Bob's link into Ann's channel: refused on the field, nothing assigned.
	mine := fmt.Sprintf("/channels/%d", cs[0].ID)
	p = c.post(mine+"/assign", url.Values{"csrf": {tok}, "item": {fmt.Sprintf("links:%d", bobLink.ID)}})
	if p.status != http.StatusNotFound || !strings.Contains(p.body, `id="f-item-error"`) {
		t.Fatalf("another user's link: %d %s", p.status, errorsOf(p.body))
	}
	for _, item := range []string{"", "evil:1", "links:x"} {
		if p := c.post(mine+"/assign", url.Values{"csrf": {tok}, "item": {item}}); p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="f-item-error"`) {
			t.Errorf("item %q: %d %s", item, p.status, errorsOf(p.body))
		}
	}
	if p := c.post(mine+"/remove", url.Values{"csrf": {tok}, "item": {fmt.Sprintf("links:%d", bobLink.ID)}}); p.status != http.StatusNotFound {
		t.Errorf("removing another user's link: %d", p.status)
	}
	if l, _ := e.store.LinkByID(context.Background(), bob.ID, bobLink.ID); l.ChannelID != nil && *l.ChannelID != 0 {
		t.Fatal("Bob's link was assigned")
	}
	// Bob's channel in Ann's URLs: 404 everywhere.
	for _, path := range []string{fmt.Sprintf("/channels/%d", bobs.ID), fmt.Sprintf("/channels/%d/edit", bobs.ID), fmt.Sprintf("/channels/%d/delete", bobs.ID), "/channels/x"} {
		if p := c.get(path); p.status != http.StatusNotFound || strings.Contains(p.body, "Bob's") {
			t.Errorf("GET %s: %d", path, p.status)
		}
	}
	for _, path := range []string{fmt.Sprintf("/channels/%d/edit", bobs.ID), fmt.Sprintf("/channels/%d/delete", bobs.ID), fmt.Sprintf("/channels/%d/assign", bobs.ID), fmt.Sprintf("/channels/%d/remove", bobs.ID)} {
		if p := c.post(path, url.Values{"csrf": {tok}, "name": {"ann"}, "item": {fmt.Sprintf("links:%d", bobLink.ID)}}); p.status != http.StatusNotFound {
			t.Errorf("POST %s: %d", path, p.status)
		}
	}
	if got, err := e.store.ChannelByID(context.Background(), bob.ID, bobs.ID); err != nil || got.Name != "Bob's" {
		t.Fatalf("Bob's channel: %+v %v", got, err)
	}
}

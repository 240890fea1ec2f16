package dashboard

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kurz/shared/link"
)

// Campaigns through api.Server.AddCampaign / UpdateCampaign /
// DeleteCampaign: rotator and list URLs, the links in a campaign, errors
// on their fields, another user's id 404.

func TestCampaignPages(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	c := e.client()
	c.signIn("ann")
	if p := c.get("/campaigns"); !strings.Contains(p.body, "No campaigns yet") {
		t.Fatalf("empty list: %d", p.status)
	}
	tok := c.token("/campaigns/new")
	p := c.post("/campaigns/new", url.Values{"csrf": {tok}, "name": {" Spring sale "}, "slug": {"spring-sale"}, "public": {"1"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("add: %d %s", p.status, errorsOf(p.body))
	}
	cs, _, err := e.store.ListCampaigns(context.Background(), ann.ID, 10, 0)
	if err != nil || len(cs) != 1 || cs[0].Name != "Spring sale" || cs[0].Slug != "spring-sale" || !cs[0].Public {
		t.Fatalf("stored %+v %v", cs, err)
	}
	camp := cs[0]
	if loc := p.header.Get("Location"); loc != fmt.Sprintf("/campaigns/%d", camp.ID) {
		t.Fatalf("after add at %s", loc)
	}
	list := c.get("/campaigns")
	for _, s := range []string{"http://sho.rt/r/spring-sale", "http://sho.rt/u/ann/spring-sale"} {
		if !strings.Contains(list.body, s) {
			t.Errorf("list lacks %s", s)
		}
	}

	in := e.link(ann, map[string]string{"url": "https://example.com/in-campaign"})
	e.link(ann, map[string]string{"url": "https://example.com/outside"})
	if err := e.store.AssignLinkToCampaign(context.Background(), ann.ID, camp.ID, in.ID); err != nil {
		t.Fatal(err)
	}
	page := c.get(fmt.Sprintf("/campaigns/%d", camp.ID))
	if !strings.Contains(page.body, "https://example.com/in-campaign") || strings.Contains(page.body, "https://example.com/outside") {
		t.Fatalf("campaign page links wrong: %d", page.status)
	}

	edit := fmt.Sprintf("/campaigns/%d/edit", camp.ID)
	if p := c.get(edit); !strings.Contains(p.body, `value="spring-sale"`) || !strings.Contains(p.body, `name="public" value="1" checked`) {
		t.Fatal("edit form does not show the campaign")
	}
	// Unchecked public and an empty slug: private, no rotator.
	if p := c.post(edit, url.Values{"csrf": {tok}, "name": {"Spring sale 2"}, "slug": {""}}); p.status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", p.status, errorsOf(p.body))
	}
	got, _ := e.store.CampaignByID(context.Background(), ann.ID, camp.ID)
	if got.Name != "Spring sale 2" || got.Slug != "" || got.Public {
		t.Fatalf("after edit %+v", got)
	}
	if l := c.get("/campaigns"); !strings.Contains(l.body, "No rotator") || !strings.Contains(l.body, "Private") {
		t.Error("list does not show the missing rotator and private list")
	}

	del := fmt.Sprintf("/campaigns/%d/delete", camp.ID)
	if p := c.get(del); !strings.Contains(p.body, "Delete this campaign?") {
		t.Fatalf("delete page %d", p.status)
	}
	if p := c.post(del, url.Values{"csrf": {"forged"}}); p.status != http.StatusForbidden {
		t.Fatalf("delete without the token: %d", p.status)
	}
	if p := c.post(del, url.Values{"csrf": {tok}}); p.status != http.StatusSeeOther {
		t.Fatalf("delete: %d", p.status)
	}
	if _, err := e.store.CampaignByID(context.Background(), ann.ID, camp.ID); err == nil {
		t.Fatal("campaign still there")
	}
	if l, err := e.store.LinkByID(context.Background(), ann.ID, in.ID); err != nil || l.CampaignID != nil && *l.CampaignID != 0 {
		t.Fatalf("its link after delete: %+v %v", l, err)
	}
}

func TestCampaignFormErrors(t *testing.T) {
	e := newEnv(t)
	ann, bob := e.user("ann"), e.user("bob")
	if _, err := e.store.CreateCampaign(context.Background(), link.Campaign{UserID: bob.ID, Name: "Bob's", Slug: "taken-slug"}); err != nil {
		t.Fatal(err)
	}
	c := e.client()
	c.signIn("ann")
	tok := c.token("/campaigns/new")
	xss := `<script>alert(1)</script>`
	p := c.post("/campaigns/new", url.Values{"csrf": {tok}, "name": {"line\nbreak" + xss}, "slug": {"12345"}})
	if p.status != http.StatusBadRequest {
		t.Fatalf("status %d", p.status)
	}
	for _, id := range []string{"f-name-error", "f-slug-error"} {
		if !strings.Contains(p.body, `id="`+id+`"`) {
			t.Errorf("no %s: %s", id, errorsOf(p.body))
		}
	}
	if strings.Contains(p.body, xss) || !strings.Contains(p.body, html.EscapeString(xss)) {
		t.Error("typed name not kept escaped")
	}
	p = c.post("/campaigns/new", url.Values{"csrf": {tok}, "name": {"Mine"}, "slug": {"Taken-Slug"}})
	if p.status != http.StatusConflict || !strings.Contains(p.body, `id="f-slug-error"`) || !strings.Contains(p.body, "already taken") {
		t.Fatalf("taken slug: %d %s", p.status, errorsOf(p.body))
	}
	if _, n, _ := e.store.ListCampaigns(context.Background(), ann.ID, 10, 0); n != 0 {
		t.Fatalf("refused forms wrote %d campaigns", n)
	}
	c.post("/campaigns/new", url.Values{"csrf": {tok}, "name": {xss}})
	if l := c.get("/campaigns"); strings.Contains(l.body, xss) || !strings.Contains(l.body, html.EscapeString(xss)) {
		t.Fatal("stored markup is not escaped")
	}
}

func TestCampaignOtherUserAndPaging(t *testing.T) {
	e := newEnv(t)
	ann, _ := e.user("ann"), e.user("bob")
	var last link.Campaign
	for i := 0; i < campaignsPerPage+1; i++ {
		var err error
		if last, err = e.store.CreateCampaign(context.Background(), link.Campaign{UserID: ann.ID, Name: fmt.Sprintf("camp %02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	a := e.client()
	a.signIn("ann")
	if p := a.get("/campaigns"); strings.Count(p.body, "<tr data-id") != campaignsPerPage || !strings.Contains(p.body, `href="/campaigns?page=2"`) {
		t.Error("page 1")
	}
	if p := a.get("/campaigns?page=2"); strings.Count(p.body, "<tr data-id") != 1 {
		t.Error("page 2")
	}
	b := e.client()
	b.signIn("bob")
	tok := b.token("/campaigns/new")
	for _, path := range []string{fmt.Sprintf("/campaigns/%d", last.ID), fmt.Sprintf("/campaigns/%d/edit", last.ID),
		fmt.Sprintf("/campaigns/%d/delete", last.ID), "/campaigns/99999999", "/campaigns/x/edit"} {
		if p := b.get(path); p.status != http.StatusNotFound || strings.Contains(p.body, last.Name) {
			t.Errorf("bob GET %s: %d", path, p.status)
		}
		if strings.HasSuffix(path, "edit") || strings.HasSuffix(path, "delete") {
			if p := b.post(path, url.Values{"csrf": {tok}, "name": {"bob"}}); p.status != http.StatusNotFound {
				t.Errorf("bob POST %s: %d", path, p.status)
			}
		}
	}
	if got, err := e.store.CampaignByID(context.Background(), ann.ID, last.ID); err != nil || got.Name != last.Name {
		t.Fatalf("Ann's campaign after Bob: %+v %v", got, err)
	}
}

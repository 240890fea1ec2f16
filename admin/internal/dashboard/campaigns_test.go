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
	out := e.link(ann, map[string]string{"url": "https://example.com/outside"})
	if err := e.store.AssignLinkToCampaign(context.Background(), ann.ID, camp.ID, in.ID); err != nil {
		t.Fatal(err)
	}
	campPath := fmt.Sprintf("/campaigns/%d", camp.ID)
	page := c.get(campPath)
	if !strings.Contains(page.body, "https://example.com/in-campaign") || strings.Contains(page.body, `name="link" value="`+fmt.Sprint(out.ID)+`"`) {
		t.Fatalf("campaign page links wrong: %d", page.status)
	}
	// The add form puts the other link in; its Remove button takes it out.
	if !strings.Contains(page.body, fmt.Sprintf(`<option value="%d">`, out.ID)) {
		t.Fatal("the add form does not offer the other link")
	}
	if p := c.post(campPath+"/assign", url.Values{"csrf": {"forged"}, "link": {fmt.Sprint(out.ID)}}); p.status != http.StatusForbidden {
		t.Fatalf("assign without the token: %d", p.status)
	}
	if p := c.post(campPath+"/assign", url.Values{"csrf": {tok}, "link": {fmt.Sprint(out.ID)}}); p.status != http.StatusSeeOther {
		t.Fatalf("assign: %d %s", p.status, errorsOf(p.body))
	}
	if page := c.get(campPath); !strings.Contains(page.body, "https://example.com/outside") || !strings.Contains(page.body, `<p class="count">2 links</p>`) {
		t.Fatal("the added link is not on the campaign's page")
	}
	for _, v := range []string{"", "x", "-1"} {
		if p := c.post(campPath+"/assign", url.Values{"csrf": {tok}, "link": {v}}); p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="f-link-error"`) {
			t.Errorf("assign %q: %d %s", v, p.status, errorsOf(p.body))
		}
	}
	if p := c.post(campPath+"/remove", url.Values{"csrf": {"forged"}, "link": {fmt.Sprint(out.ID)}}); p.status != http.StatusForbidden {
		t.Fatalf("remove without the token: %d", p.status)
	}
	if p := c.post(campPath+"/remove", url.Values{"csrf": {tok}, "link": {fmt.Sprint(out.ID)}}); p.status != http.StatusSeeOther {
		t.Fatalf("remove: %d", p.status)
	}
	if l, err := e.store.LinkByID(context.Background(), ann.ID, out.ID); err != nil || l.CampaignID != nil {
		t.Fatalf("removed link: %+v %v", l.CampaignID, err)
	}
	if page := c.get(campPath); !strings.Contains(page.body, "Removed from") || !strings.Contains(page.body, `<p class="count">1 link</p>`) {
		t.Fatal("the page does not show the removal")
	}
	// Sent from page 2 of the campaign's links: back to page 2.
	if p := c.post(campPath+"/remove", url.Values{"csrf": {tok}, "link": {fmt.Sprint(out.ID)}, "page": {"2"}}); p.status != http.StatusSeeOther || p.header.Get("Location") != campPath+"?page=2" {
		t.Fatalf("second remove: %d to %q", p.status, p.header.Get("Location"))
	}
	if page := c.get(campPath); !strings.Contains(page.body, "no longer in") {
		t.Fatal("a stale remove does not say the link was already out")
	}
	if p := c.post(campPath+"/remove", url.Values{"csrf": {tok}, "link": {"x"}}); p.status != http.StatusBadRequest {
		t.Fatalf("remove of nothing: %d", p.status)
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
	ann, bob := e.user("ann"), e.user("bob")
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
	// Bob on Ann's campaign, and Bob's link into Bob's own campaign by way
	// of Ann's id: 404 and nothing moves.
	annLink := e.link(ann, map[string]string{"url": "https://example.com/ann"})
	if err := e.store.AssignLinkToCampaign(context.Background(), ann.ID, last.ID, annLink.ID); err != nil {
		t.Fatal(err)
	}
	bobLink := e.link(bob, map[string]string{"url": "https://example.com/bob"})
	for _, path := range []string{fmt.Sprintf("/campaigns/%d/assign", last.ID), fmt.Sprintf("/campaigns/%d/remove", last.ID)} {
		for _, id := range []int64{annLink.ID, bobLink.ID} {
			if p := b.post(path, url.Values{"csrf": {tok}, "link": {fmt.Sprint(id)}}); p.status != http.StatusNotFound {
				t.Errorf("bob POST %s link %d: %d", path, id, p.status)
			}
		}
	}
	annTok := a.token("/campaigns/new")
	if p := a.post(fmt.Sprintf("/campaigns/%d/assign", last.ID), url.Values{"csrf": {annTok}, "link": {fmt.Sprint(bobLink.ID)}}); p.status != http.StatusNotFound || !strings.Contains(p.body, `id="f-link-error"`) {
		t.Errorf("Ann adding Bob's link: %d %s", p.status, errorsOf(p.body))
	}
	if p := a.post(fmt.Sprintf("/campaigns/%d/remove", last.ID), url.Values{"csrf": {annTok}, "link": {fmt.Sprint(bobLink.ID)}}); p.status != http.StatusNotFound {
		t.Errorf("Ann removing Bob's link: %d", p.status)
	}
	if l, _ := e.store.LinkByID(context.Background(), ann.ID, annLink.ID); l.CampaignID == nil || *l.CampaignID != last.ID {
		t.Error("Ann's link left her campaign")
	}
	if l, _ := e.store.LinkByID(context.Background(), bob.ID, bobLink.ID); l.CampaignID != nil {
		t.Error("Bob's link joined a campaign")
	}
	if got, err := e.store.CampaignByID(context.Background(), ann.ID, last.ID); err != nil || got.Name != last.Name {
		t.Fatalf("Ann's campaign after Bob: %+v %v", got, err)
	}
}

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

// Pixels through api.Server.AddPixel / UpdatePixel / DeletePixel: stored
// as the API stores them, refusals on their fields, another user's id 404.

func TestPixelPages(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	c := e.client()
	c.signIn("ann")

	if p := c.get("/pixels"); p.status != http.StatusOK || !strings.Contains(p.body, "No pixels yet") {
		t.Fatalf("empty list: %d", p.status)
	}
	tok := c.token("/pixels/new")
	// The API's alias of the original service's type is accepted, stored neutral.
	p := c.post("/pixels/new", url.Values{"csrf": {tok}, "type": {"gtmpixel"}, "name": {" Main GTM "}, "tag": {"GTM-ABC123"}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/pixels" {
		t.Fatalf("add: %d %s", p.status, errorsOf(p.body))
	}
	px := onlyPixel(t, e, ann.ID)
	if px.Type != "tagmanagerpixel" || px.Name != "Main GTM" || px.Tag != "GTM-ABC123" {
		t.Fatalf("stored %+v", px)
	}
	list := c.get("/pixels")
	for _, s := range []string{"Main GTM", "Tag manager", "GTM-ABC123", fmt.Sprintf("/pixels/%d/edit", px.ID)} {
		if !strings.Contains(list.body, s) {
			t.Errorf("list lacks %q", s)
		}
	}

	edit := fmt.Sprintf("/pixels/%d/edit", px.ID)
	if p := c.get(edit); !strings.Contains(p.body, `value="GTM-ABC123"`) || !strings.Contains(p.body, `value="tagmanagerpixel" selected`) {
		t.Fatalf("edit form does not show the pixel: %d", p.status)
	}
	p = c.post(edit, url.Values{"csrf": {tok}, "type": {"analyticspixel"}, "name": {"Analytics"}, "tag": {"G-XYZ"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", p.status, errorsOf(p.body))
	}
	if px = onlyPixel(t, e, ann.ID); px.Type != "analyticspixel" || px.Name != "Analytics" || px.Tag != "G-XYZ" {
		t.Fatalf("after edit %+v", px)
	}
	// A refused edit changes nothing and marks its field.
	p = c.post(edit, url.Values{"csrf": {tok}, "type": {"analyticspixel"}, "name": {""}, "tag": {"G-XYZ"}})
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="f-name-error"`) {
		t.Fatalf("empty name: %d %s", p.status, errorsOf(p.body))
	}
	if px = onlyPixel(t, e, ann.ID); px.Name != "Analytics" {
		t.Fatalf("refused edit wrote %+v", px)
	}

	del := fmt.Sprintf("/pixels/%d/delete", px.ID)
	if p := c.get(del); p.status != http.StatusOK || !strings.Contains(p.body, "Delete this pixel?") {
		t.Fatalf("delete page %d", p.status)
	}
	if p := c.post(del, url.Values{"csrf": {"forged"}}); p.status != http.StatusForbidden {
		t.Fatalf("delete without the token: %d", p.status)
	}
	if p := c.post(del, url.Values{"csrf": {tok}}); p.status != http.StatusSeeOther {
		t.Fatalf("delete: %d", p.status)
	}
	if ps, _, _ := e.store.ListPixels(context.Background(), ann.ID, 10, 0); len(ps) != 0 {
		t.Fatalf("after delete: %+v", ps)
	}
}

func onlyPixel(t *testing.T, e *env, userID int64) link.Pixel {
	t.Helper()
	ps, _, err := e.store.ListPixels(context.Background(), userID, 10, 0)
	if err != nil || len(ps) != 1 {
		t.Fatalf("pixels: %+v, %v", ps, err)
	}
	return ps[0]
}

// Every wrong field is marked at once, typed values kept, markup inert.
func TestPixelFormErrors(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	c := e.client()
	c.signIn("ann")
	tok := c.token("/pixels/new")
	xss := `<script>alert(1)</script>`
	p := c.post("/pixels/new", url.Values{"csrf": {tok}, "type": {"nosuch"}, "name": {xss}, "tag": {`bad tag"><img src=x>`}})
	if p.status != http.StatusBadRequest {
		t.Fatalf("status %d", p.status)
	}
	for _, id := range []string{"f-type-error", "f-tag-error"} {
		if !strings.Contains(p.body, `id="`+id+`"`) {
			t.Errorf("no %s: %s", id, errorsOf(p.body))
		}
	}
	if strings.Contains(p.body, xss) || strings.Contains(p.body, `<img src=x>`) {
		t.Fatal("markup from the form is not escaped")
	}
	if !strings.Contains(p.body, html.EscapeString(xss)) {
		t.Error("the typed name is not kept")
	}
	p = c.post("/pixels/new", url.Values{"csrf": {tok}, "type": {"tiktok"}, "name": {""}, "tag": {""}})
	for _, id := range []string{"f-name-error", "f-tag-error"} {
		if !strings.Contains(p.body, `id="`+id+`"`) {
			t.Errorf("empty fields: no %s: %s", id, errorsOf(p.body))
		}
	}
	if ps, _, _ := e.store.ListPixels(context.Background(), ann.ID, 10, 0); len(ps) != 0 {
		t.Fatalf("refused forms wrote %+v", ps)
	}
	// Markup in a stored name stays text in the list.
	c.post("/pixels/new", url.Values{"csrf": {tok}, "type": {"tiktok"}, "name": {xss}, "tag": {"ttq-1"}})
	if l := c.get("/pixels"); strings.Contains(l.body, xss) || !strings.Contains(l.body, html.EscapeString(xss)) {
		t.Fatal("stored markup is not escaped in the list")
	}
}

// Another user's pixel id is the same 404 as an unknown one, and is not
// changed; pages of 25.
func TestPixelOtherUserAndPaging(t *testing.T) {
	e := newEnv(t)
	ann, _ := e.user("ann"), e.user("bob")
	var annPx link.Pixel
	for i := 0; i < pixelsPerPage+2; i++ {
		annPx = link.Pixel{UserID: ann.ID, Type: "shortvideo", Name: fmt.Sprintf("pixel %02d", i), Tag: "t" + fmt.Sprint(i)}
		if err := e.store.CreatePixel(context.Background(), &annPx); err != nil {
			t.Fatal(err)
		}
	}
	a := e.client()
	a.signIn("ann")
	p1, p2 := a.get("/pixels"), a.get("/pixels?page=2")
	if strings.Count(p1.body, "<tr data-id") != pixelsPerPage || !strings.Contains(p1.body, `href="/pixels?page=2"`) {
		t.Errorf("page 1 rows %d", strings.Count(p1.body, "<tr data-id"))
	}
	if strings.Count(p2.body, "<tr data-id") != 2 || !strings.Contains(p2.body, `rel="prev"`) {
		t.Errorf("page 2 rows %d", strings.Count(p2.body, "<tr data-id"))
	}
	if p := a.get("/pixels?page=0"); p.status != http.StatusNotFound {
		t.Errorf("page=0: %d", p.status)
	}

	b := e.client()
	b.signIn("bob")
	tok := b.token("/pixels/new")
	for _, path := range []string{fmt.Sprintf("/pixels/%d/edit", annPx.ID), fmt.Sprintf("/pixels/%d/delete", annPx.ID), "/pixels/999999/edit", "/pixels/x/delete"} {
		if p := b.get(path); p.status != http.StatusNotFound || strings.Contains(p.body, annPx.Name) {
			t.Errorf("bob GET %s: %d", path, p.status)
		}
		if p := b.post(path, url.Values{"csrf": {tok}, "type": {"tiktok"}, "name": {"bob"}, "tag": {"b"}}); p.status != http.StatusNotFound {
			t.Errorf("bob POST %s: %d", path, p.status)
		}
	}
	ps, total, err := e.store.ListPixels(context.Background(), ann.ID, 1, 0)
	if err != nil || total != pixelsPerPage+2 || ps[0].Name != annPx.Name {
		t.Fatalf("Ann's pixels after Bob: %d %+v %v", total, ps, err)
	}
	if b.get("/pixels").body == "" || !strings.Contains(b.get("/pixels").body, "No pixels yet") {
		t.Error("bob sees pixels")
	}
}

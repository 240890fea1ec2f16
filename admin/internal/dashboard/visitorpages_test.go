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

// Overlays and splash pages through api.Server.Add…/Update…/Delete…:
// stored as the API stores them, every refusal on its field, another
// user's id 404, CSRF, markup inert, and the preview as the edge renders it.

// vpCase is one visitor-page kind under test.
type vpCase struct {
	path string
	// valid is a form the API accepts; stored reads back what it stored
	// as form-like values to compare with want.
	valid, edit      url.Values
	want, wantEdited map[string]string
	// bad marks these fields (their error ids).
	bad       url.Values
	badFields []string
	stored    func(t *testing.T, e *env, userID int64) []map[string]string
}

func vpCases() []vpCase {
	return []vpCase{
		{
			path: "/overlays",
			valid: url.Values{"name": {" Spring banner "}, "message": {"Spring sale!\nUp to 50% off"}, "button_text": {"Shop now"},
				"button_url": {" https://shop.example.com/spring "}, "background": {"#0a3d62"}, "color": {"#ffffff"}, "position": {"top-right"}},
			want: map[string]string{"name": "Spring banner", "type": "message", "message": "Spring sale!\nUp to 50% off", "button_text": "Shop now",
				"button_url": "https://shop.example.com/spring", "background": "#0A3D62", "color": "#FFFFFF", "position": "top-right"},
			// An emptied field is cleared, not kept.
			edit: url.Values{"name": {"Spring banner 2"}, "message": {""}, "button_text": {""}, "button_url": {""},
				"background": {"#111111"}, "color": {"#eeeeee"}, "position": {"bottom"}},
			wantEdited: map[string]string{"name": "Spring banner 2", "type": "message", "message": "", "button_text": "",
				"button_url": "", "background": "#111111", "color": "#EEEEEE", "position": "bottom"},
			bad: url.Values{"name": {"   "}, "message": {"ok"}, "button_text": {"x"}, "button_url": {"javascript:alert(1)"},
				"background": {"red"}, "color": {"#12"}, "position": {"middle"}},
			badFields: []string{"name", "button_url", "background", "color", "position"},
			stored: func(t *testing.T, e *env, userID int64) []map[string]string {
				os, _, err := e.store.ListOverlays(context.Background(), userID, 100, 0)
				if err != nil {
					t.Fatal(err)
				}
				var out []map[string]string
				for _, o := range os {
					out = append(out, map[string]string{"id": fmt.Sprint(o.ID), "name": o.Name, "type": o.Type, "message": o.Message,
						"button_text": o.ButtonText, "button_url": o.ButtonURL, "background": o.Background, "color": o.Color, "position": o.Position})
				}
				return out
			},
		},
		{
			path: "/splash",
			valid: url.Values{"name": {"Welcome"}, "title": {"Hello there"}, "message": {"You are on your way\nto our shop."},
				"image": {"https://cdn.example.com/banner.png"}, "link": {"https://example.com/about"}, "counter": {" 12 "}},
			want: map[string]string{"name": "Welcome", "title": "Hello there", "message": "You are on your way\nto our shop.",
				"image": "https://cdn.example.com/banner.png", "link": "https://example.com/about", "counter": "12"},
			edit:       url.Values{"name": {"Welcome 2"}, "title": {""}, "message": {""}, "image": {""}, "link": {""}, "counter": {"0"}},
			wantEdited: map[string]string{"name": "Welcome 2", "title": "", "message": "", "image": "", "link": "", "counter": "0"},
			bad: url.Values{"name": {""}, "title": {"tab\there"}, "message": {"ok"}, "image": {"ftp://example.com/x.png"},
				"link": {"not a url"}, "counter": {"soon"}},
			badFields: []string{"name", "title", "image", "link", "counter"},
			stored: func(t *testing.T, e *env, userID int64) []map[string]string {
				ps, _, err := e.store.ListSplashPages(context.Background(), userID, 100, 0)
				if err != nil {
					t.Fatal(err)
				}
				var out []map[string]string
				for _, p := range ps {
					out = append(out, map[string]string{"id": fmt.Sprint(p.ID), "name": p.Name, "title": p.Title, "message": p.Message,
						"image": p.Image, "link": p.Link, "counter": fmt.Sprint(p.Counter)})
				}
				return out
			},
		},
	}
}

func withCSRF(v url.Values, tok string) url.Values {
	out := url.Values{"csrf": {tok}}
	for k, vs := range v {
		out[k] = vs
	}
	return out
}

// only is the one stored record, without its id (returned apart).
func (vc vpCase) only(t *testing.T, e *env, userID int64) (map[string]string, string) {
	t.Helper()
	recs := vc.stored(t, e, userID)
	if len(recs) != 1 {
		t.Fatalf("%s: %d records stored: %v", vc.path, len(recs), recs)
	}
	id := recs[0]["id"]
	delete(recs[0], "id")
	return recs[0], id
}

func sameValues(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %q, want %q", what, k, got[k], v)
		}
	}
}

func TestVisitorPages(t *testing.T) {
	for _, vc := range vpCases() {
		t.Run(strings.TrimPrefix(vc.path, "/"), func(t *testing.T) {
			e := newEnv(t)
			ann := e.user("ann")
			c := e.client()
			c.signIn("ann")
			if p := c.get(vc.path); p.status != http.StatusOK || !strings.Contains(p.body, `class="card empty"`) {
				t.Fatalf("empty list: %d", p.status)
			}
			tok := c.token(vc.path + "/new")
			p := c.post(vc.path+"/new", withCSRF(vc.valid, tok))
			if p.status != http.StatusSeeOther || p.header.Get("Location") != vc.path {
				t.Fatalf("add: %d %s", p.status, errorsOf(p.body))
			}
			got, id := vc.only(t, e, ann.ID)
			sameValues(t, "stored", got, vc.want)

			list := c.get(vc.path)
			for _, s := range []string{html.EscapeString(vc.want["name"]), vc.path + "/" + id + "/edit", vc.path + "/" + id + "/delete"} {
				if !strings.Contains(list.body, s) {
					t.Errorf("list lacks %q", s)
				}
			}
			edit := vc.path + "/" + id + "/edit"
			form := c.get(edit)
			for k, v := range vc.valid {
				want := strings.TrimSpace(v[0])
				if k == "background" || k == "color" {
					want = strings.ToUpper(want)
				}
				if k == "message" {
					continue // a textarea: checked below
				}
				if k == "position" {
					if !strings.Contains(form.body, `value="`+want+`" selected`) {
						t.Errorf("edit form does not select %s %q", k, want)
					}
					continue
				}
				if !strings.Contains(form.body, `value="`+html.EscapeString(want)+`"`) {
					t.Errorf("edit form does not show %s %q", k, want)
				}
			}
			if !strings.Contains(form.body, ">"+html.EscapeString(vc.want["message"])+"</textarea>") {
				t.Error("edit form does not show the message")
			}

			// "Update preview" saves nothing and keeps what was typed.
			pv := withCSRF(vc.edit, tok)
			pv.Set("do", "preview")
			if p := c.post(edit, pv); p.status != http.StatusOK || !strings.Contains(p.body, `value="`+vc.edit.Get("name")+`"`) {
				t.Fatalf("preview button: %d", p.status)
			}
			if got, _ := vc.only(t, e, ann.ID); got["name"] != vc.want["name"] {
				t.Fatalf("the preview button saved: %v", got)
			}
			// A refused edit writes nothing.
			if p := c.post(edit, withCSRF(vc.bad, tok)); p.status != http.StatusBadRequest {
				t.Fatalf("refused edit: %d", p.status)
			}
			if got, _ := vc.only(t, e, ann.ID); got["name"] != vc.want["name"] {
				t.Fatalf("a refused edit wrote %v", got)
			}
			if p := c.post(edit, withCSRF(vc.edit, tok)); p.status != http.StatusSeeOther {
				t.Fatalf("save: %d %s", p.status, errorsOf(p.body))
			}
			got, _ = vc.only(t, e, ann.ID)
			sameValues(t, "edited", got, vc.wantEdited)

			// A link showing it becomes a direct link when it is deleted.
			kind := map[string]string{"/overlays": "overlay", "/splash": "splash"}[vc.path]
			l := e.link(ann, map[string]string{"url": "https://example.com/shown", "type": kind + "-" + id})
			del := vc.path + "/" + id + "/delete"
			if p := c.get(del); p.status != http.StatusOK || !strings.Contains(p.body, "Delete this") || !strings.Contains(p.body, `sandbox="allow-scripts"`) {
				t.Fatalf("delete page %d", p.status)
			}
			if p := c.post(del, url.Values{"csrf": {"forged"}}); p.status != http.StatusForbidden {
				t.Fatalf("delete without the token: %d", p.status)
			}
			if len(vc.stored(t, e, ann.ID)) != 1 {
				t.Fatal("a forged delete deleted")
			}
			if p := c.post(del, url.Values{"csrf": {tok}}); p.status != http.StatusSeeOther {
				t.Fatalf("delete: %d", p.status)
			}
			if n := len(vc.stored(t, e, ann.ID)); n != 0 {
				t.Fatalf("%d records after delete", n)
			}
			after, err := e.store.LinkByID(context.Background(), ann.ID, l.ID)
			if err != nil || after.Type != link.TypeDirect {
				t.Fatalf("the link after the delete: %+v %v", after, err)
			}
		})
	}
}

// Every wrong field is marked at once, typed values kept and escaped;
// nothing is written. Markup stored in a name or message stays text.
func TestVisitorPageFormErrors(t *testing.T) {
	xss := `<script>document.title="pwned"</script><img src=x onerror=alert(1)>`
	for _, vc := range vpCases() {
		t.Run(strings.TrimPrefix(vc.path, "/"), func(t *testing.T) {
			e := newEnv(t)
			ann := e.user("ann")
			c := e.client()
			c.signIn("ann")
			tok := c.token(vc.path + "/new")
			bad := withCSRF(vc.bad, tok)
			bad.Set("message", xss)
			p := c.post(vc.path+"/new", bad)
			if p.status != http.StatusBadRequest {
				t.Fatalf("status %d", p.status)
			}
			for _, f := range vc.badFields {
				if !strings.Contains(p.body, `id="f-`+f+`-error"`) || !strings.Contains(p.body, `aria-describedby="f-`+f) {
					t.Errorf("%s not marked: %s", f, errorsOf(p.body))
				}
			}
			if strings.Contains(p.body, `id="f-message-error"`) {
				t.Error("the valid message is marked")
			}
			if strings.Contains(p.body, xss) || !strings.Contains(p.body, html.EscapeString(xss)) {
				t.Error("the typed message is not kept escaped")
			}
			for k, v := range vc.bad {
				if k != "message" && k != "position" && !strings.Contains(p.body, `value="`+html.EscapeString(v[0])+`"`) {
					t.Errorf("typed %s %q not kept", k, v[0])
				}
			}
			if n := len(vc.stored(t, e, ann.ID)); n != 0 {
				t.Fatalf("a refused form wrote %d records", n)
			}
			good := withCSRF(vc.valid, tok)
			good.Set("name", xss)
			good.Set("message", xss)
			if p := c.post(vc.path+"/new", good); p.status != http.StatusSeeOther {
				t.Fatalf("add with markup: %d %s", p.status, errorsOf(p.body))
			}
			for _, page := range []string{vc.path, vc.path + "/" + vc.stored(t, e, ann.ID)[0]["id"] + "/edit"} {
				if b := c.get(page).body; strings.Contains(b, xss) || !strings.Contains(b, html.EscapeString(xss)) {
					t.Errorf("%s: stored markup is not escaped", page)
				}
			}
		})
	}
}

// Another user's id is the same 404 as an unknown or malformed one, on
// every page and POST, and changes nothing; pages of 25.
func TestVisitorPagesOtherUserAndPaging(t *testing.T) {
	e := newEnv(t)
	ann, _ := e.user("ann"), e.user("bob")
	ctx := context.Background()
	var overlayID, splashID int64
	for i := 0; i < visitorPagesPerPage+1; i++ {
		var err error
		if overlayID, err = e.store.CreateOverlay(ctx, link.Overlay{UserID: ann.ID, Name: fmt.Sprintf("ann overlay %02d", i),
			Type: "message", Position: "top"}); err != nil {
			t.Fatal(err)
		}
		if splashID, err = e.store.CreateSplashPage(ctx, link.SplashPage{UserID: ann.ID, Name: fmt.Sprintf("ann splash %02d", i), Counter: 3}); err != nil {
			t.Fatal(err)
		}
	}
	a := e.client()
	a.signIn("ann")
	b := e.client()
	b.signIn("bob")
	tok := b.token("/overlays/new")
	for _, vc := range vpCases() {
		p1, p2 := a.get(vc.path), a.get(vc.path+"?page=2")
		if n := strings.Count(p1.body, "<tr data-id"); n != visitorPagesPerPage || !strings.Contains(p1.body, `href="`+vc.path+`?page=2"`) {
			t.Errorf("%s page 1: %d rows", vc.path, n)
		}
		if n := strings.Count(p2.body, "<tr data-id"); n != 1 || !strings.Contains(p2.body, `rel="prev"`) {
			t.Errorf("%s page 2: %d rows", vc.path, n)
		}
		if p := a.get(vc.path + "?page=3"); !strings.Contains(p.body, "No more") {
			t.Errorf("%s page 3: no 'No more'", vc.path)
		}
		if p := a.get(vc.path + "?page=x"); p.status != http.StatusNotFound {
			t.Errorf("%s page=x: %d", vc.path, p.status)
		}
		if p := b.get(vc.path); !strings.Contains(p.body, `class="card empty"`) || strings.Contains(p.body, "ann ") {
			t.Errorf("%s: bob sees ann's", vc.path)
		}
		id := map[string]int64{"/overlays": overlayID, "/splash": splashID}[vc.path]
		for _, path := range []string{fmt.Sprintf("%s/%d/edit", vc.path, id), fmt.Sprintf("%s/%d/delete", vc.path, id),
			vc.path + "/999999/edit", vc.path + "/0x1/delete", vc.path + "/-1/edit"} {
			if p := b.get(path); p.status != http.StatusNotFound || strings.Contains(p.body, "ann ") {
				t.Errorf("bob GET %s: %d", path, p.status)
			}
			if p := b.post(path, withCSRF(vc.valid, tok)); p.status != http.StatusNotFound {
				t.Errorf("bob POST %s: %d", path, p.status)
			}
		}
	}
	os, total, err := e.store.ListOverlays(ctx, ann.ID, 1, 0)
	if err != nil || total != visitorPagesPerPage+1 || os[0].Name != fmt.Sprintf("ann overlay %02d", visitorPagesPerPage) {
		t.Fatalf("ann's overlays after bob: %d %+v %v", total, os, err)
	}
	ps, total, err := e.store.ListSplashPages(ctx, ann.ID, 1, 0)
	if err != nil || total != visitorPagesPerPage+1 || ps[0].Counter != 3 || ps[0].Name != fmt.Sprintf("ann splash %02d", visitorPagesPerPage) {
		t.Fatalf("ann's splash pages after bob: %d %+v %v", total, ps, err)
	}
}

// The preview is the edge's page for the typed values, with the edge's
// policy made framable by the dashboard only and sandboxed; it answers
// only as a frame; markup stays text; refused values are left out.
func TestVisitorPagePreview(t *testing.T) {
	e := newEnv(t)
	e.user("ann")
	c := e.client()
	frame := map[string]string{"Sec-Fetch-Dest": "iframe"}
	xss := `</p><script>alert(1)</script>`
	tests := []struct {
		name, path string
		q          url.Values
		want       []string
		not        []string
	}{
		{"overlay", "/overlays/preview", url.Values{"message": {xss}, "button_text": {"Shop <b>now</b>"},
			"button_url": {"https://shop.example.com/"}, "background": {"#0a3d62"}, "color": {"#fafafa"}, "position": {"top-right"}},
			[]string{html.EscapeString(xss), "Shop &lt;b&gt;now&lt;/b&gt;", `href="https://shop.example.com/"`, `class="ov p-tr"`,
				".ov{background:#0A3D62;color:#FAFAFA}", `src="` + e.base + `/preview/destination"`},
			[]string{xss, "<b>now"}},
		{"overlay, refused values left out", "/overlays/preview", url.Values{"message": {"Hi"}, "button_url": {"javascript:alert(1)"},
			"background": {"red;x:y"}, "position": {"nowhere"}},
			[]string{"<p>Hi</p>", `class="ov p-bl"`, ".ov{background:#1F2328;color:#FFFFFF}"},
			[]string{"javascript:", "red;x", "ov-btn\" href"}},
		{"splash", "/splash/preview", url.Values{"title": {`Hello <i>there</i>`}, "message": {xss}, "image": {"https://cdn.example.com/b.png"},
			"link": {"https://example.com/about"}, "counter": {"30"}},
			[]string{"<h1>Hello &lt;i&gt;there&lt;/i&gt;</h1>", html.EscapeString(xss), `data-delay="30"`,
				`content="30;url=` + e.base + `/preview/destination"`, `href="https://example.com/about"`, `class="splash-img" src="` + e.base + `/assets/`},
			[]string{xss, "<i>there", "cdn.example.com"}},
		{"splash, refused counter", "/splash/preview", url.Values{"counter": {"600"}},
			[]string{`data-delay="5"`, "<h1>Redirecting</h1>"}, []string{`class="splash-img"`}},
	}
	c.signIn("ann")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := c.do(http.MethodGet, tt.path+"?"+tt.q.Encode(), nil, frame)
			if p.status != http.StatusOK {
				t.Fatalf("status %d", p.status)
			}
			for _, s := range tt.want {
				if !strings.Contains(p.body, s) {
					t.Errorf("lacks %q", s)
				}
			}
			for _, s := range tt.not {
				if strings.Contains(p.body, s) {
					t.Errorf("has %q", s)
				}
			}
			csp := p.header.Get("Content-Security-Policy")
			for _, d := range []string{"default-src 'none'", "frame-ancestors 'self'", "sandbox allow-scripts", "base-uri 'none'", "style-src 'sha256-"} {
				if !strings.Contains(csp, d) {
					t.Errorf("CSP %q lacks %q", csp, d)
				}
			}
			if strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "allow-same-origin") {
				t.Errorf("CSP %q", csp)
			}
			if got := p.header.Get("X-Frame-Options"); got != "SAMEORIGIN" {
				t.Errorf("X-Frame-Options %q", got)
			}
			if got := p.header.Get("Referrer-Policy"); got != "no-referrer" {
				t.Errorf("Referrer-Policy %q", got)
			}
		})
	}
	// Not as a frame (a link to it, a top-level visit): 404.
	for _, dest := range []string{"", "document"} {
		if p := c.do(http.MethodGet, "/overlays/preview?message=Call+us", nil, map[string]string{"Sec-Fetch-Dest": dest}); p.status != http.StatusNotFound {
			t.Errorf("Sec-Fetch-Dest %q: %d", dest, p.status)
		}
	}
	// Signed out: the sign-in page, never the preview.
	if p := e.client().do(http.MethodGet, "/splash/preview", nil, frame); p.status != http.StatusSeeOther {
		t.Errorf("signed out: %d", p.status)
	}
	// The forms frame it: their policy allows frames of the dashboard only.
	for _, path := range []string{"/overlays/new", "/splash/new"} {
		p := c.get(path)
		if csp := p.header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if !strings.Contains(p.body, `<iframe class="vp-preview" id="vp-preview" src="`+strings.TrimSuffix(path, "new")+`preview?`) ||
			!strings.Contains(p.body, `sandbox="allow-scripts"`) {
			t.Errorf("%s: no sandboxed preview frame", path)
		}
	}
	if csp := c.get("/links").header.Get("Content-Security-Policy"); strings.Contains(csp, "frame-src") {
		t.Errorf("other pages allow frames: %q", csp)
	}
	// The stand-in destination: static, sandboxed.
	p := c.get("/preview/destination")
	if p.status != http.StatusOK || !strings.Contains(p.body, "Your link's destination") ||
		!strings.Contains(p.header.Get("Content-Security-Policy"), "sandbox") || strings.Contains(p.body, "<script") {
		t.Errorf("stand-in destination: %d %q", p.status, p.header.Get("Content-Security-Policy"))
	}
}

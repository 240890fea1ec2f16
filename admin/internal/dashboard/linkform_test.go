package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"kurz/shared/link"
)

// The link form's fields beyond the basics: rule rows, deep links,
// parameters, social card, pixels, channel, campaign; its preview and the
// alias check. Every write goes through api.Server.AddLink / UpdateLink.

// groups creates a pixel, a channel and a campaign of u.
func (e *env) groups(u *link.User) (pixel, channel, campaign int64) {
	e.t.Helper()
	ctx := context.Background()
	p := &link.Pixel{UserID: u.ID, Type: "tagmanagerpixel", Name: "Shop GTM", Tag: "GTM-ABC123"}
	if err := e.store.CreatePixel(ctx, p); err != nil {
		e.t.Fatal(err)
	}
	ch, err := e.store.CreateChannel(ctx, link.Channel{UserID: u.ID, Name: "Newsletter"})
	if err != nil {
		e.t.Fatal(err)
	}
	cp, err := e.store.CreateCampaign(ctx, link.Campaign{UserID: u.ID, Name: "Spring sale"})
	if err != nil {
		e.t.Fatal(err)
	}
	return p.ID, ch.ID, cp.ID
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

// fullForm is a create form with every field.
func fullForm(tok string, pixel, channel, campaign int64) url.Values {
	return url.Values{
		"csrf": {tok}, "do": {"save"},
		"url": {"https://shop.example.com/spring"}, "custom": {"spring-all"}, "type": {"direct"}, "status": {"public"},
		"geo_key": {"Germany", "fr"}, "geo_url": {"https://shop.example.com/de", "https://shop.example.com/fr"},
		"device_key": {"iphone"}, "device_url": {"https://shop.example.com/ios"},
		"lang_key": {"pt_br"}, "lang_url": {"https://shop.example.com/pt"},
		"param_key": {"utm_source"}, "param_url": {"newsletter"},
		"ios_store": {"https://apps.example.com/id1"}, "android_store": {"https://play.example.com/x"},
		"metatitle": {"Spring sale"}, "metadescription": {"Everything must go"}, "metaimage": {"https://img.example.com/card.png"},
		"description": {"for the May mailing"}, "pixels": {id(pixel)}, "channel": {id(channel)}, "campaign": {id(campaign)},
	}
}

func TestLinkFormEveryField(t *testing.T) {
	e := newEnv(t)
	u := e.user("ann")
	pixel, channel, campaign := e.groups(u)
	c := e.client()
	c.signIn("ann")
	tok := c.token("/links/new")

	p := c.post("/links/new", fullForm(tok, pixel, channel, campaign))
	if p.status != http.StatusSeeOther {
		t.Fatalf("create: status %d: %s", p.status, errorsOf(p.body))
	}
	links, _, err := e.store.ListLinks(context.Background(), u.ID, nil, 10, 0)
	if err != nil || len(links) != 1 {
		t.Fatalf("links: %v, %v", links, err)
	}
	l, err := e.store.LinkByID(context.Background(), u.ID, links[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(map[string]any{"geo": l.GeoTargets, "dev": l.DeviceTargets, "lang": l.LangTargets, "params": l.Parameters,
		"ios": l.DeeplinkIOS, "android": l.DeeplinkAndroid, "img": l.MetaImage, "pixels": l.PixelIDs,
		"channel": l.ChannelID, "campaign": l.CampaignID, "status": l.Status})
	want, _ := json.Marshal(map[string]any{
		"geo":    []link.GeoTarget{{Location: "DE", Link: "https://shop.example.com/de"}, {Location: "FR", Link: "https://shop.example.com/fr"}},
		"dev":    []link.DeviceTarget{{Device: "iphone", Link: "https://shop.example.com/ios"}},
		"lang":   []link.LangTarget{{Language: "pt-BR", Link: "https://shop.example.com/pt"}},
		"params": []link.Param{{Name: "utm_source", Value: "newsletter"}},
		"ios":    "https://apps.example.com/id1", "android": "https://play.example.com/x", "img": "https://img.example.com/card.png",
		"pixels": []int64{pixel}, "channel": channel, "campaign": campaign, "status": "public"})
	if string(got) != string(want) {
		t.Fatalf("stored link:\n got %s\nwant %s", got, want)
	}

	// The edit form shows every value; an edit that removes the first
	// country rule, the pixels and the channel changes only those.
	edit := fmt.Sprintf("/links/%d/edit", l.ID)
	page := c.get(edit)
	for _, s := range []string{`value="DE"`, `value="https://shop.example.com/fr"`, `<option value="iphone" selected>`,
		`value="pt-BR"`, `value="utm_source"`, `value="https://apps.example.com/id1"`, `value="https://img.example.com/card.png"`,
		`name="pixels" value="` + id(pixel) + `" checked`, `<option value="` + id(channel) + `" selected>Newsletter`} {
		if !strings.Contains(page.body, s) {
			t.Errorf("edit form lacks %s", s)
		}
	}
	f := fullForm(tok, pixel, channel, campaign)
	f.Del("custom")
	f["custom"] = []string{l.Alias}
	f["geo_key"], f["geo_url"] = []string{"fr"}, []string{"https://shop.example.com/fr"}
	f.Del("pixels")
	f.Set("channel", "")
	if p := c.post(edit, f); p.status != http.StatusSeeOther {
		t.Fatalf("edit: status %d: %s", p.status, errorsOf(p.body))
	}
	l2, _ := e.store.LinkByID(context.Background(), u.ID, l.ID)
	if len(l2.GeoTargets) != 1 || l2.GeoTargets[0].Location != "FR" || len(l2.PixelIDs) != 0 || l2.ChannelID != nil ||
		len(l2.DeviceTargets) != 1 || l2.CampaignID == nil || l2.DeeplinkIOS == "" {
		t.Fatalf("after edit: geo %v pixels %v channel %v devices %v campaign %v", l2.GeoTargets, l2.PixelIDs, l2.ChannelID, l2.DeviceTargets, l2.CampaignID)
	}
}

// errorsOf is the error messages of a page, for failure output.
func errorsOf(body string) string {
	var out []string
	for _, part := range strings.Split(body, `class="error"`)[1:] {
		if i := strings.Index(part, "</p>"); i > 0 {
			out = append(out, part[:i])
		}
	}
	return strings.Join(out, " | ")
}

// A refused rule is shown next to its own row, every typed value kept.
func TestLinkFormRowErrors(t *testing.T) {
	e := newEnv(t)
	ann, bob := e.user("ann"), e.user("bob")
	bobsPixel, bobsChannel, bobsCampaign := e.groups(bob)
	c := e.client()
	c.signIn("ann")
	tok := c.token("/links/new")
	f := url.Values{"csrf": {tok}, "do": {"save"}, "url": {"https://example.com/"}, "type": {"direct"}, "status": {"private"},
		"geo_key": {"DE", "atlantis"}, "geo_url": {"https://example.com/de", "https://example.com/atl"},
		"device_key": {"iphone"}, "device_url": {"javascript:alert(1)"},
		"param_key": {"bad name!"}, "param_url": {"x"},
		"ios_store": {"http://not-https.example/"}}
	p := c.post("/links/new", f)
	if p.status != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", p.status)
	}
	for _, want := range []string{
		`id="geo-key-1-error">⚠`, `unknown country &#34;atlantis&#34;`, `id="device-url-0-error"`, `id="param-key-0-error"`,
		`id="f-ios_store-error"`, `value="atlantis"`, `value="javascript:alert(1)"`, `value="bad name!"`,
	} {
		if !strings.Contains(p.body, strings.TrimSuffix(want, "⚠")) {
			t.Errorf("refused form lacks %s; errors: %s", want, errorsOf(p.body))
		}
	}
	if strings.Contains(p.body, `id="geo-key-0-error"`) {
		t.Error("the valid first country rule is marked wrong")
	}
	// Another user's pixel is refused on the pixels field (the store's
	// check, after the rest passed).
	p = c.post("/links/new", url.Values{"csrf": {tok}, "do": {"save"}, "url": {"https://example.com/"}, "pixels": {id(bobsPixel)}})
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="f-pixels-error"`) || !strings.Contains(p.body, "is not one of your pixels") {
		t.Errorf("bob's pixel: status %d, errors %s", p.status, errorsOf(p.body))
	}
	for field, v := range map[string]string{"channel": id(bobsChannel), "campaign": id(bobsCampaign)} {
		p = c.post("/links/new", url.Values{"csrf": {tok}, "do": {"save"}, "url": {"https://example.com/"}, field: {v}})
		if p.status < 400 || p.status >= 500 || !strings.Contains(p.body, `id="f-`+field+`-error"`) {
			t.Errorf("bob's %s: status %d, errors %s", field, p.status, errorsOf(p.body))
		}
	}
	// Markup typed in rows comes back as text.
	p = c.post("/links/new", url.Values{"csrf": {tok}, "do": {"save"}, "url": {"https://example.com/"},
		"geo_key": {`"><script>alert(1)</script>`}, "geo_url": {`https://example.com/"><img src=x>`},
		"param_key": {`<b>x</b>`}, "param_url": {`"><svg onload=alert(1)>`}})
	if strings.Contains(p.body, "<script>alert") || strings.Contains(p.body, "<img src=x") || strings.Contains(p.body, "<svg onload") ||
		!strings.Contains(p.body, `value="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`) {
		t.Errorf("markup in rows is not inert: %s", errorsOf(p.body))
	}
	if n, _, _ := e.store.ListLinks(context.Background(), ann.ID, nil, 10, 0); len(n) != 0 {
		t.Fatalf("a refused form wrote %d links", len(n))
	}
}

// The row buttons add and remove rows without saving, keeping the rest.
func TestLinkFormRowButtons(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	c := e.client()
	c.signIn("ann")
	tok := c.token("/links/new")
	base := url.Values{"csrf": {tok}, "url": {"https://example.com/keep-me"}, "metatitle": {"kept"},
		"geo_key": {"DE", "FR"}, "geo_url": {"https://example.com/de", "https://example.com/fr"}}
	for _, tc := range []struct {
		do       string
		has, not []string
	}{
		{"add-geo", []string{`id="geo-key-2"`, `value="https://example.com/fr"`}, []string{`id="geo-key-3"`}},
		{"del-geo-0", []string{`value="https://example.com/fr"`}, []string{`value="https://example.com/de"`, `id="geo-key-1"`}},
		{"add-lang", []string{`id="lang-key-0"`, `id="geo-key-1"`}, nil},
		{"add-param", []string{`id="param-key-0"`}, nil},
		{"preview", []string{`https://example.com/de</p>`, "A visitor from Germany"}, nil},
	} {
		f := url.Values{}
		for k, v := range base {
			f[k] = v
		}
		f.Set("do", tc.do)
		p := c.post("/links/new", f)
		if p.status != http.StatusOK {
			t.Fatalf("%s: status %d", tc.do, p.status)
		}
		for _, s := range append(tc.has, `value="https://example.com/keep-me"`, `value="kept"`) {
			if !strings.Contains(p.body, s) {
				t.Errorf("%s: page lacks %s", tc.do, s)
			}
		}
		for _, s := range tc.not {
			if strings.Contains(p.body, s) {
				t.Errorf("%s: page has %s", tc.do, s)
			}
		}
	}
	// The browser posts the button as its own name ("add-geo=Add a rule").
	f := url.Values{"add-geo": {"Add a rule"}, "do": {""}}
	for k, v := range base {
		f[k] = v
	}
	if p := c.post("/links/new", f); p.status != http.StatusOK || !strings.Contains(p.body, `id="geo-key-2"`) {
		t.Errorf("add-geo as a button name: status %d", p.status)
	}
	if n, _, _ := e.store.ListLinks(context.Background(), ann.ID, nil, 10, 0); len(n) != 0 {
		t.Fatalf("row buttons wrote %d links", len(n))
	}
}

// The preview picks what the edge picks (shared/target), in its order.
func TestLinkPreview(t *testing.T) {
	e := newEnv(t)
	e.user("ann")
	c := e.client()
	c.signIn("ann")
	tok := c.token("/links/new")
	form := url.Values{"url": {"https://example.com/"}, "metatitle": {`<script>alert("t")</script>`},
		"metadescription": {`<img src=x onerror=alert(1)>`}, "metaimage": {"https://img.example.com/c.png"},
		"geo_key": {"Germany"}, "geo_url": {"https://example.com/de"},
		"device_key": {"windows"}, "device_url": {"https://example.com/win"},
		"lang_key": {"fr"}, "lang_url": {"https://example.com/fr"},
		"ios_store": {"https://apps.example.com/id1"}}
	for _, tc := range []struct {
		country, device, lang, want, by string
	}{
		{"DE", "iphone", "fr", "https://apps.example.com/id1", "deep link"},
		{"DE", "windows", "fr", "https://example.com/de", "country rule"},
		{"US", "windows", "fr", "https://example.com/win", "device rule"},
		{"CA", "android", "fr-CA,fr;q=0.9", "https://example.com/fr", "language rule"},
		{"US", "macos", "en-US", "https://example.com/", "destination URL"},
	} {
		f := url.Values{"pv_country": {tc.country}, "pv_device": {tc.device}, "pv_lang": {tc.lang}}
		for k, v := range form {
			f[k] = v
		}
		p := c.do(http.MethodPost, "/links/preview", f, map[string]string{"X-CSRF-Token": tok})
		if p.status != http.StatusOK {
			t.Fatalf("%v: status %d", tc, p.status)
		}
		if !strings.Contains(p.body, `<p class="dest-url mono">`+tc.want+`</p>`) || !strings.Contains(p.body, tc.by) {
			t.Errorf("%s/%s/%s: preview %s, want %s by %s", tc.country, tc.device, tc.lang, p.body, tc.want, tc.by)
		}
		if strings.Contains(p.body, "<script") || strings.Contains(p.body, "<img") || !strings.Contains(p.body, "&lt;script&gt;") {
			t.Fatalf("markup of the meta fields is not inert: %s", p.body)
		}
		if !strings.Contains(p.body, "Image from img.example.com") {
			t.Errorf("social card: %s", p.body)
		}
	}
	// With URL parameters, the preview shows the address the edge sends
	// the visitor to (link.WithParams, the edge's own code), rules and
	// deep links included; a parameter replaces a same-named pair.
	withParams := url.Values{"param_key": {"utm_source", "ref"}, "param_url": {"news letter", "k&z"}}
	for _, tc := range []struct {
		country, device, want string
	}{
		{"DE", "iphone", "https://apps.example.com/id1?utm_source=news&#43;letter&amp;ref=k%26z"},
		{"DE", "windows", "https://example.com/de?utm_source=news&#43;letter&amp;ref=k%26z"},
		{"US", "macos", "https://example.com/?keep=1&amp;utm_source=news&#43;letter&amp;ref=k%26z#top"},
	} {
		f := url.Values{"pv_country": {tc.country}, "pv_device": {tc.device}, "pv_lang": {"en"}}
		for k, v := range form {
			f[k] = v
		}
		for k, v := range withParams {
			f[k] = v
		}
		f.Set("url", "https://example.com/?utm_source=old&keep=1#top")
		p := c.do(http.MethodPost, "/links/preview", f, map[string]string{"X-CSRF-Token": tok})
		if !strings.Contains(p.body, `<p class="dest-url mono">`+tc.want+`</p>`) || !strings.Contains(p.body, "with your URL parameters added") {
			t.Errorf("%s/%s with parameters: preview %s, want %s", tc.country, tc.device, p.body, tc.want)
		}
	}
	// As the edge: a rule whose address the parameters make invalid is
	// left out (the visitor falls through to the next step); a destination
	// they make invalid is a link that answers "not found".
	long := "https://example.com/" + strings.Repeat("x", 4000)
	dropped := url.Values{"pv_country": {"DE"}, "pv_device": {"windows"}, "pv_lang": {"en"},
		"url": {"https://example.com/home"}, "geo_key": {"DE"}, "geo_url": {long},
		"device_key": {"windows"}, "device_url": {"https://example.com/win"},
		"param_key": {"utm_source"}, "param_url": {strings.Repeat("y", 100)}}
	if p := c.do(http.MethodPost, "/links/preview", dropped, map[string]string{"X-CSRF-Token": tok}); !strings.Contains(p.body, `<p class="dest-url mono">https://example.com/win?utm_source=yyy`) || !strings.Contains(p.body, "device rule") {
		t.Errorf("a rule the parameters make too long is not left out: %s", p.body)
	}
	bad := url.Values{"url": {long}, "param_key": {"a"}, "param_url": {strings.Repeat("x", 200)}}
	if p := c.do(http.MethodPost, "/links/preview", bad, map[string]string{"X-CSRF-Token": tok}); !strings.Contains(p.body, "With the URL parameters the destination is not a valid URL") || strings.Contains(p.body, "dest-url") {
		t.Errorf("preview of parameters making the destination too long: %s", p.body)
	}
	bad.Set("url", "ftp://example.com/")
	if p := c.do(http.MethodPost, "/links/preview", bad, map[string]string{"X-CSRF-Token": tok}); !strings.Contains(p.body, "Fix the destination URL first") {
		t.Errorf("preview of a bad destination with parameters: %s", p.body)
	}
	f := url.Values{"geo_key": {"atlantis"}, "geo_url": {"https://example.com/x"}}
	if p := c.do(http.MethodPost, "/links/preview", f, map[string]string{"X-CSRF-Token": tok}); !strings.Contains(p.body, "Fix geotarget[0].location first") {
		t.Errorf("preview of a bad rule: %s", p.body)
	}
	// CSRF: without the token, or cross-site, the preview is refused.
	if p := c.post("/links/preview", form); p.status != http.StatusForbidden {
		t.Errorf("preview without a token: status %d", p.status)
	}
	if p := c.do(http.MethodPost, "/links/preview", form, map[string]string{"X-CSRF-Token": tok, "Sec-Fetch-Site": "cross-site"}); p.status != http.StatusForbidden {
		t.Errorf("cross-site preview: status %d", p.status)
	}
}

// The alias check answers through the API's rules, per user, limited.
func TestAliasCheck(t *testing.T) {
	e := newEnv(t)
	ann, bob := e.user("ann"), e.user("bob")
	e.link(bob, map[string]string{"url": "https://example.com/", "custom": "bobs-alias"})
	if _, err := e.store.CreateDomain(context.Background(), link.Domain{UserID: bob.ID, Host: "go.bob.example", Domain: "https://go.bob.example"}); err != nil {
		t.Fatal(err)
	}
	_ = ann
	c := e.client()
	if p := c.get("/links/alias?custom=free-one"); p.status != http.StatusUnauthorized {
		t.Errorf("signed out: status %d", p.status)
	}
	c.signIn("ann")
	for _, tc := range []struct{ query, want string }{
		{"custom=free-one", "available"},
		{"custom=bobs-alias", "taken"},
		{"custom=no", "invalid"},
		{"custom=a%20b%3Cscript%3E", "invalid"},
		{"custom=api", "invalid"},
		{"custom=free-one&domain=https://go.bob.example", "invalid"},
		{"custom=free-one&domain=not%20a%20domain", "invalid"},
	} {
		p := c.get("/links/alias?" + tc.query)
		var r struct{ Status, Message string }
		if err := json.Unmarshal([]byte(p.body), &r); err != nil || p.status != http.StatusOK || r.Status != tc.want {
			t.Errorf("%s: %d %q, want %s", tc.query, p.status, p.body, tc.want)
		}
		if ct := p.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("content type %q", ct)
		}
	}
	// The free plan's 30 per minute: 7 used above.
	var last page
	for range 24 {
		last = c.get("/links/alias?custom=free-two")
	}
	if last.status != http.StatusTooManyRequests || !strings.Contains(last.body, "limited") {
		t.Fatalf("past the limit: %d %s", last.status, last.body)
	}
}

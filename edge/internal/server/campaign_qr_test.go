package server

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"

	"kurz/shared/click"
	"kurz/shared/pgstore"
)

// TestRotator: visits rotate evenly over the campaign's links, also when
// the cached campaign is reloaded in between (a change of any of its links
// or of any campaign invalidates it; a fresh entry must not restart the
// rotation).
func TestRotator(t *testing.T) {
	e := newEnv(t)
	camp := e.id(`INSERT INTO campaigns (user_id, name, slug, public) VALUES ($1, 'Spring', 'Spring-Sale', true) RETURNING id`, e.user)
	ids := map[string]int64{}
	for _, a := range []string{"r1", "r2", "r3"} {
		ids["https://example.com/"+a] = e.addLink(linkRow{Alias: a, URL: "https://example.com/" + a, CampaignID: &camp})
	}
	counts := map[string]int{}
	for i := range 30 {
		if i%4 == 1 {
			e.cat.Apply(t0(), pgstore.Change{Object: pgstore.ObjectCampaign, Op: pgstore.OpUpdate, ID: camp})
		}
		r := e.do(req{path: "/r/spring-sale"})
		expect(t, r, 302, "")
		counts[location(r)]++
		if h := e.rec.last(t); h.LinkID != ids[location(r)] || h.Kind != click.KindLink {
			t.Fatalf("click on link %d for %s", h.LinkID, location(r))
		}
	}
	for u := range ids {
		if counts[u] != 10 {
			t.Fatalf("uneven rotation: %v", counts)
		}
	}
	expect(t, e.do(req{path: "/r/unknown"}), 404, "")
}

// A password link picked by a rotator sends the visitor to the link's own
// URL: its form posts there and its unlock cookie is scoped to it.
func TestRotatorPasswordLink(t *testing.T) {
	e := newEnv(t)
	camp := e.id(`INSERT INTO campaigns (user_id, name, slug, public) VALUES ($1, 'Locked', 'locked', true) RETURNING id`, e.user)
	e.addLink(linkRow{Alias: "secret", URL: "https://example.com/secret", Password: "right", CampaignID: &camp})
	r := e.do(req{path: "/r/locked?utm_source=x"})
	expect(t, r, 302, testBase+"/secret?utm_source=x")
	if n := len(e.rec.all()); n != 0 {
		t.Fatalf("%d clicks pushed before the password was given", n)
	}
	r = e.do(req{method: "POST", path: "/secret", form: "password=right"})
	expect(t, r, 303, "/secret")
}

func TestCampaignList(t *testing.T) {
	e := newEnv(t)
	pub := e.id(`INSERT INTO campaigns (user_id, name, slug, public) VALUES ($1, 'Launch <b>week</b>', 'launch', true) RETURNING id`, e.user)
	noSlug := e.id(`INSERT INTO campaigns (user_id, name, public) VALUES ($1, 'No slug', true) RETURNING id`, e.user)
	priv := e.id(`INSERT INTO campaigns (user_id, name, slug, public) VALUES ($1, 'Hidden', 'hidden', false) RETURNING id`, e.user)
	e.addLink(linkRow{Alias: "l1", URL: "https://example.com/1", MetaTitle: "First <link>", CampaignID: &pub})
	e.addLink(linkRow{Alias: "l2", URL: "https://example.com/2", CampaignID: &noSlug})
	e.addLink(linkRow{Alias: "l3", URL: "https://example.com/3", CampaignID: &priv})
	e.addLink(linkRow{Alias: "l4", URL: "https://example.com/4", CampaignID: &pub, Private: true})

	r := e.do(req{path: "/u/alice/launch"})
	expect(t, r, 200, "")
	expectBody(t, r, "Launch &lt;b&gt;week&lt;/b&gt;", "First &lt;link&gt;", testBase+"/l1")
	if strings.Contains(string(r.Body()), "/l4") {
		t.Fatal("private link listed on a public campaign page")
	}
	r = e.do(req{path: "/u/ALICE/" + fmtID(noSlug)})
	expect(t, r, 200, "")
	expectBody(t, r, testBase+"/l2")
	for _, p := range []string{"/u/alice/hidden", "/u/alice/" + fmtID(priv), "/u/bob/launch", "/u/alice/nope"} {
		r := e.do(req{path: p})
		expect(t, r, 404, "")
		if strings.Contains(string(r.Body()), "/l3") {
			t.Fatal("private campaign leaked")
		}
	}
}

func TestQR(t *testing.T) {
	e := newEnv(t)
	qid := e.id(`INSERT INTO qr_codes (user_id, code, type, data, content, target_url, foreground, background)
		VALUES ($1, 'Qr7x', 'link', '"https://example.com/menu"', 'http://kurz.test/q/Qr7x', 'https://example.com/menu', 'rgb(0,0,128)', 'rgb(255,255,255)') RETURNING id`, e.user)
	e.exec(`INSERT INTO qr_codes (user_id, code, type, data, content) VALUES ($1, 'txt1', 'text', '"hello"', 'hello')`, e.user)

	t.Run("scan", func(t *testing.T) {
		expect(t, e.do(req{path: "/q/Qr7x"}), 302, "https://example.com/menu")
		h := e.rec.last(t)
		if h.Kind != click.KindQR || h.QRID != qid || h.OwnerID != e.user || h.LinkID != 0 {
			t.Fatalf("hit kind %d qr %d owner %d link %d", h.Kind, h.QRID, h.OwnerID, h.LinkID)
		}
		expect(t, e.do(req{path: "/q/txt1"}), 404, "")
		expect(t, e.do(req{path: "/q/none"}), 404, "")
	})
	t.Run("png", func(t *testing.T) {
		r := e.do(req{path: "/qr/Qr7x?size=400"})
		expect(t, r, 200, "")
		if ct := string(r.Header.ContentType()); ct != "image/png" {
			t.Fatalf("Content-Type %q", ct)
		}
		if cc := string(r.Header.Peek("Cache-Control")); !strings.HasPrefix(cc, "public") {
			t.Fatalf("Cache-Control %q", cc)
		}
		img, err := png.Decode(bytes.NewReader(r.Body()))
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != 400 {
			t.Fatalf("width %d", b.Dx())
		}
		bmp, err := gozxing.NewBinaryBitmapFromImage(img)
		if err != nil {
			t.Fatal(err)
		}
		res, err := qrcode.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_TRY_HARDER: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.GetText() != "http://kurz.test/q/Qr7x" {
			t.Fatalf("decoded %q", res.GetText())
		}
		// Cached render: same ETag, and If-None-Match gives 304.
		etag := string(r.Header.Peek("ETag"))
		r2 := e.do(req{path: "/qr/Qr7x?size=400", headers: map[string]string{"If-None-Match": etag}})
		expect(t, r2, 304, "")
	})
	t.Run("svg", func(t *testing.T) {
		r := e.do(req{path: "/qr/txt1?format=svg"})
		expect(t, r, 200, "")
		if ct := string(r.Header.ContentType()); ct != "image/svg+xml" {
			t.Fatalf("Content-Type %q", ct)
		}
		expectBody(t, r, "<svg", "<path")
	})
	t.Run("bad parameters", func(t *testing.T) {
		expect(t, e.do(req{path: "/qr/Qr7x?size=5000"}), 400, "")
		expect(t, e.do(req{path: "/qr/Qr7x?format=gif"}), 400, "")
		expect(t, e.do(req{path: "/qr/unknown"}), 404, "")
	})
}

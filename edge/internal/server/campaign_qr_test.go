package server

import (
	"bytes"
	"fmt"
	"image/png"
	"runtime"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"

	"kurz/shared/click"
	"kurz/shared/link"
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

// TestRotatorManyLinks: a rotator of 5000 links holds their keys only; a
// visit resolves the chosen link through the link cache, like a visit of
// its short URL (its rules apply, unchosen links are never loaded), and
// every link gets its turn once per round.
func TestRotatorManyLinks(t *testing.T) {
	e := newEnv(t)
	const n = 5000
	camp := e.id(`INSERT INTO campaigns (user_id, name, slug) VALUES ($1, 'Big', 'big') RETURNING id`, e.user)
	e.addLink(linkRow{Alias: "locked", URL: "https://example.com/locked", Password: "right", CampaignID: &camp})
	e.addLink(linkRow{Alias: "lang", URL: "https://example.com/en", Lang: [][2]string{{"de", "https://example.com/de"}}, CampaignID: &camp})
	e.exec(`INSERT INTO links (user_id, alias, long_url, campaign_id)
		SELECT $1, 'b' || i, 'https://example.com/b' || i, $2 FROM generate_series(1, $3::int) i`, e.user, camp, n-2)

	de := map[string]string{"Accept-Language": "de"}
	expect(t, e.do(req{path: "/r/big", headers: de}), 302, testBase+"/locked")
	if n := len(e.rec.all()); n != 0 {
		t.Fatalf("%d clicks pushed for a password link's turn", n)
	}
	expect(t, e.do(req{path: "/r/big", headers: de}), 302, "https://example.com/de")
	for i := 1; i <= 20; i++ {
		expect(t, e.do(req{path: "/r/big"}), 302, fmt.Sprintf("https://example.com/b%d", i))
	}
	for _, alias := range []string{"b21", "b2000", fmt.Sprintf("b%d", n-2)} {
		if _, ok := e.cat.Link("", []byte(alias)); ok {
			t.Fatalf("link %s loaded before its turn", alias)
		}
	}
	// The rest of the round, then the next one starts over.
	seen := map[string]int{}
	for range n - 22 {
		r := e.do(req{path: "/r/big"})
		expect(t, r, 302, "")
		seen[location(r)]++
	}
	if len(seen) != n-22 {
		t.Fatalf("%d distinct links in the rest of a round of %d, want %d", len(seen), n, n-22)
	}
	expect(t, e.do(req{path: "/r/big"}), 302, testBase+"/locked")
	expect(t, e.do(req{path: "/r/big"}), 302, "https://example.com/en")
}

// TestCampaignListNewest: a list page shows the newest
// link.MaxCampaignListLinks public links of a big campaign, oldest first,
// and says so.
func TestCampaignListNewest(t *testing.T) {
	e := newEnv(t)
	camp := e.id(`INSERT INTO campaigns (user_id, name, slug, public) VALUES ($1, 'Huge', 'huge', true) RETURNING id`, e.user)
	const n = link.MaxCampaignListLinks + 3
	e.exec(`INSERT INTO links (user_id, alias, long_url, campaign_id, status)
		SELECT $1, 'h' || i, 'https://example.com/', $2, CASE WHEN i % 7 = 0 THEN 'private' ELSE 'public' END
		  FROM generate_series(1, $3::int) i`, e.user, camp, n+n/6)
	r := e.do(req{path: "/u/alice/huge"})
	expect(t, r, 200, "")
	body := string(r.Body())
	if got := strings.Count(body, "<li>"); got != link.MaxCampaignListLinks {
		t.Fatalf("%d links listed, want %d", got, link.MaxCampaignListLinks)
	}
	expectBody(t, r, fmt.Sprintf("Showing the newest %d links", link.MaxCampaignListLinks))
	// Newest public link listed last; the oldest ones and every private one left out.
	last := n + n/6
	for last%7 == 0 {
		last--
	}
	if i, j := strings.Index(body, testBase+"/h"+fmtID(int64(last))+`"`), strings.LastIndex(body, "<li>"); i < j {
		t.Fatalf("newest link h%d not listed last", last)
	}
	for _, a := range []string{"h1", "h2", "h7", fmt.Sprintf("h%d", (last/7)*7)} {
		if strings.Contains(body, testBase+"/"+a+`"`) {
			t.Fatalf("%s listed", a)
		}
	}
}

// TestQRScanSkipsLogo: a scan loads only the code's target, not its logo
// (here 1 MiB of bytes, which a render never needs to reach either).
func TestQRScanSkipsLogo(t *testing.T) {
	e := newEnv(t)
	logo := make([]byte, 1<<20)
	for i := range logo {
		logo[i] = byte(i * 7919 >> 3)
	}
	e.exec(`INSERT INTO qr_codes (user_id, code, type, data, content, target_url, logo)
		VALUES ($1, 'Heavy1', 'link', '"https://example.com/"', 'http://kurz.test/q/Heavy1', 'https://example.com/', $2)`, e.user, logo)
	expect(t, e.do(req{path: "/q/none"}), 404, "") // connections made
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	expect(t, e.do(req{path: "/q/Heavy1"}), 302, "https://example.com/")
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 256<<10 {
		t.Fatalf("a scan allocated %d KiB: the logo was loaded", d>>10)
	}
}

// TestQRChangeReachesScansAndRenders: a QR code's change notice drops it
// from the scan cache and the render cache alike.
func TestQRChangeReachesScansAndRenders(t *testing.T) {
	e := newEnv(t)
	e.exec(`INSERT INTO qr_codes (user_id, code, type, data, content, target_url)
		VALUES ($1, 'Both1', 'link', '"https://example.com/a"', 'http://kurz.test/q/Both1', 'https://example.com/a')`, e.user)
	expect(t, e.do(req{path: "/q/Both1"}), 302, "https://example.com/a")
	r := e.do(req{path: "/qr/Both1?format=svg"})
	expect(t, r, 200, "")
	etag := string(r.Header.Peek("ETag"))
	e.cat.Wait()

	e.exec(`UPDATE qr_codes SET target_url = 'https://example.com/b', foreground = 'rgb(0,0,128)' WHERE code = 'Both1'`)
	e.cat.Apply(t0(), pgstore.Change{Object: pgstore.ObjectQR, Op: pgstore.OpUpdate, Code: "Both1"})
	expect(t, e.do(req{path: "/q/Both1"}), 302, "https://example.com/b")
	r = e.do(req{path: "/qr/Both1?format=svg"})
	expect(t, r, 200, "")
	if string(r.Header.Peek("ETag")) == etag {
		t.Fatal("render not reloaded after the change")
	}
	expectBody(t, r, "#000080")

	e.exec(`DELETE FROM qr_codes WHERE code = 'Both1'`)
	e.cat.Apply(t0(), pgstore.Change{Object: pgstore.ObjectQR, Op: pgstore.OpDelete, Code: "Both1"})
	expect(t, e.do(req{path: "/q/Both1"}), 404, "")
	expect(t, e.do(req{path: "/qr/Both1"}), 404, "")
}

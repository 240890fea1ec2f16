package api

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kurz/admin/internal/safefetch"
	"kurz/shared/chstore"
	"kurz/shared/click"
	"kurz/shared/pgstore/pgtest"
)

// Link writes as clients of the original service make them (issue 13):
// dedupe, "short", campaign, pixel aliases, rgb colours, status and
// description on update, uniqueClicks in lists, framing warnings.

// noFrameFetch is the framing check's policy in tests (startEnv): every
// address is refused at dial time, so frame and overlay links to real
// sites such as example.com send no request (their warning says "could not
// be checked"). TestLinkFrameWarnings allows its httptest servers.
var noFrameFetch = safefetch.Options{AllowAddr: func(netip.Addr) bool { return false }, Timeout: time.Second}

func (e *testEnv) addLink(t *testing.T, key string, body map[string]any) response {
	t.Helper()
	return e.do("POST", "/api/url/add", key, body).wantStatus(t, http.StatusOK)
}

func idOf(t *testing.T, r response) int64 {
	t.Helper()
	id, ok := r.Body["id"].(float64)
	if !ok || id <= 0 {
		t.Fatalf("no id in %s", r.Raw)
	}
	return int64(id)
}

func TestLinkDedupe(t *testing.T) {
	e := newEnv(t)
	uid, key := e.user("alice")
	_, bkey := e.user("bob")
	fx := makeLinkFixtures(t, e, uid, "go.alice.example")
	const url = "https://example.com/same?a=1"
	first := e.addLink(t, key, map[string]any{"url": url})
	id := idOf(t, first)
	before := linkCount(t, e)

	// Only url, or url with empty / default values: the same link.
	same := []map[string]any{
		{"url": url},
		{"url": "  " + url + " "},
		{"url": url, "domain": "", "custom": "", "type": "direct", "password": "", "expiry": "", "status": "private",
			"channel": 0, "campaign": 0, "pixels": []int64{}, "geotarget": []any{}, "devicetarget": []any{},
			"languagetarget": []any{}, "parameters": []any{}, "metatitle": "", "metadescription": "", "metaimage": "",
			"description": "", "deeplink": map[string]any{"ios_store": "", "android_store": ""}, "dedupe": true},
		{"url": url, "domain": "http://sho.rt", "metatitle": nil},
	}
	for i, body := range same {
		r := e.addLink(t, key, body)
		if idOf(t, r) != id || r.Body["shorturl"] != first.Body["shorturl"] || r.Body["short"] != first.Body["shorturl"] || r.Body["error"] != float64(0) {
			t.Errorf("request %d: %s, want the existing link %s", i, r.Raw, first.Raw)
		}
	}
	if n := linkCount(t, e); n != before {
		t.Fatalf("%d links after repeats, want %d", n, before)
	}

	// Any option, dedupe:false, or another user: a new link.
	differs := map[string]map[string]any{
		"dedupe false": {"dedupe": false},
		"custom":       {"custom": "mine"},
		"type":         {"type": "frame"},
		"password":     {"password": "pw"},
		"expiry":       {"expiry": "2099-01-01 00:00:00"},
		"metatitle":    {"metatitle": "T"},
		"description":  {"description": "n"},
		"status":       {"status": "public"},
		"pixels":       {"pixels": []int64{fx.pixel1}},
		"channel":      {"channel": fx.channel},
		"geotarget":    {"geotarget": []map[string]string{{"location": "de", "link": "https://de.example/"}}},
		"parameters":   {"parameters": []map[string]string{{"name": "a", "value": "1"}}},
		"deeplink":     {"deeplink": map[string]string{"ios_store": "https://apps.example/1"}},
		"domain":       {"domain": "go.alice.example"},
	}
	seen := map[int64]string{id: "first"}
	for name, extra := range differs {
		body := map[string]any{"url": url}
		for k, v := range extra {
			body[k] = v
		}
		got := idOf(t, e.addLink(t, key, body))
		if prev, dup := seen[got]; dup {
			t.Errorf("%s: id %d, the same as %s", name, got, prev)
		}
		seen[got] = name
	}
	if got := idOf(t, e.addLink(t, bkey, map[string]any{"url": url})); seen[got] != "" {
		t.Errorf("bob got alice's link %d", got)
	}
	// The oldest plain link is still the answer (dedupe:false made a newer one).
	if got := idOf(t, e.addLink(t, key, map[string]any{"url": url})); got != id {
		t.Errorf("after dedupe:false: id %d, want the oldest %d", got, id)
	}
	// A link given settings later is no longer plain: the next add is new.
	e.do("PUT", fmt.Sprintf("/api/url/%d/update", id), key, map[string]any{"metatitle": "now set"}).wantStatus(t, http.StatusOK)
	newer := idOf(t, e.addLink(t, key, map[string]any{"url": url}))
	if newer == id {
		t.Error("a link with a title was reused")
	}

	e.do("POST", "/api/url/add", key, map[string]any{"url": url, "dedupe": "no"}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "dedupe", "boolean")
	e.do("PUT", fmt.Sprintf("/api/url/%d/update", id), key, map[string]any{"dedupe": false}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "dedupe: applies only to POST /api/url/add")
}

// TestLinkDedupeConcurrent: identical adds at once get one link.
func TestLinkDedupeConcurrent(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	const n = 16
	ids := make([]int64, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.do("POST", "/api/url/add", key, map[string]any{"url": "https://example.com/race"})
			if r.Status == http.StatusOK {
				ids[i] = int64(r.Body["id"].(float64))
			}
		}()
	}
	wg.Wait()
	for i, id := range ids {
		if id == 0 || id != ids[0] {
			t.Errorf("request %d: id %d, want %d", i, id, ids[0])
		}
	}
	if c := linkCount(t, e); c != 1 {
		t.Errorf("%d links, want 1", c)
	}
}

func TestLinkCampaignField(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	_, bkey := e.user("bob")
	newCampaign := func(key, name string) int64 {
		return idOf(t, e.do("POST", "/api/campaign/add", key, map[string]any{"name": name, "public": true}).wantStatus(t, http.StatusOK))
	}
	cid, cid2 := newCampaign(key, "spring"), newCampaign(key, "summer")
	bcid := newCampaign(bkey, "bob's")

	id := idOf(t, e.addLink(t, key, map[string]any{"url": "https://example.com/c", "campaign": cid}))
	if got := e.shortLinkDetails(t, key, id)["campaign"]; got != float64(cid) {
		t.Errorf("details.campaign = %v, want %d", got, cid)
	}
	plain := idOf(t, e.addLink(t, key, map[string]any{"url": "https://example.com/plain"}))
	campaignOf := func() map[int64]any {
		out := map[int64]any{}
		for _, it := range e.do("GET", "/api/urls", key, nil).list(t, "urls") {
			row := it.(map[string]any)
			out[int64(row["id"].(float64))] = row["campaign"]
		}
		return out
	}
	if got := campaignOf(); got[id] != float64(cid) || got[plain] != float64(0) {
		t.Errorf("list campaigns %v", got)
	}

	// Another user's or an unknown campaign: 400, nothing written.
	before := linkCount(t, e)
	for _, bad := range []int64{bcid, 999999} {
		e.do("POST", "/api/url/add", key, map[string]any{"url": "https://example.com/x", "campaign": bad}).
			wantStatus(t, http.StatusBadRequest).wantMessage(t, fmt.Sprintf("campaign: %d is not one of your campaigns", bad))
		e.do("PUT", fmt.Sprintf("/api/url/%d/update", id), key, map[string]any{"metatitle": "x", "campaign": bad}).
			wantStatus(t, http.StatusBadRequest).wantMessage(t, fmt.Sprintf("campaign: %d is not one of your campaigns", bad))
	}
	e.do("POST", "/api/url/add", key, map[string]any{"url": "https://example.com/x", "campaign": -1}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "campaign")
	e.do("POST", "/api/url/add", key, map[string]any{"url": "https://example.com/x", "campaign": "spring"}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "campaign")
	if n := linkCount(t, e); n != before {
		t.Errorf("rejected writes created %d links", n-before)
	}
	if d := e.shortLinkDetails(t, key, id); d["campaign"] != float64(cid) || d["metatitle"] != "" {
		t.Errorf("rejected update wrote: %v", d)
	}

	// Update moves the link and notifies the edge; campaign 0 removes it.
	listen := pgtest.Listen(context.Background(), t, e.dsn)
	e.do("PUT", fmt.Sprintf("/api/url/%d/update", id), key, map[string]any{"campaign": cid2}).wantStatus(t, http.StatusOK)
	if n := pgtest.Notices(context.Background(), t, listen); n["links"] != 1 {
		t.Errorf("notices %v, want one for links", n)
	}
	if got := campaignOf()[id]; got != float64(cid2) {
		t.Errorf("after move: campaign %v, want %d", got, cid2)
	}
	e.do("PUT", fmt.Sprintf("/api/url/%d/update", id), key, map[string]any{"campaign": 0}).wantStatus(t, http.StatusOK)
	if got := campaignOf()[id]; got != float64(0) {
		t.Errorf("after campaign 0: %v", got)
	}
}

func TestPixelTypeAliases(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	aliases := map[string]string{
		"gtmpixel": "tagmanagerpixel", "gapixel": "analyticspixel", "fbpixel": "socialnetworkpixel",
		"adwordspixel": "searchadspixel", "linkedinpixel": "professionalnetworkpixel", "twitterpixel": "microblogpixel",
		"adrollpixel": "retargetingpixel", "quorapixel": "questionsitepixel", "pinterest": "imageboard",
		"bing": "searchengine", "snapchat": "messagingapp", "reddit": "forumsite", "tiktok": "shortvideo",
		"FBPixel": "socialnetworkpixel", "ShortVideo": "shortvideo",
	}
	want := map[int64]string{}
	for alias, canon := range aliases {
		want[e.newPixel(t, key, alias, "p "+alias, "T-1")] = canon
	}
	for _, it := range e.do("GET", "/api/pixels?limit=100", key, nil).list(t, "pixels") {
		row := it.(map[string]any)
		if id := int64(row["id"].(float64)); row["type"] != want[id] {
			t.Errorf("pixel %v: type %v, want %s", row["name"], row["type"], want[id])
		}
	}
	// Update may change the type, with the same names.
	id := e.newPixel(t, key, "fbpixel", "switch", "F-1")
	e.do("PUT", fmt.Sprintf("/api/pixel/%d/update", id), key, map[string]any{"tag": "T-2", "type": "tiktok"}).wantStatus(t, http.StatusOK)
	e.do("PUT", fmt.Sprintf("/api/pixel/%d/update", id), key, map[string]any{"tag": "T-3", "type": "myspace"}).
		wantStatus(t, http.StatusBadRequest).wantMessage(t, "type", "fbpixel")
	var typ, tag string
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT type, tag FROM pixels WHERE id = $1`, id).Scan(&typ, &tag); err != nil {
		t.Fatal(err)
	}
	if typ != "shortvideo" || tag != "T-2" {
		t.Errorf("after updates: type %q tag %q, want shortvideo T-2", typ, tag)
	}
}

func TestChannelRGBColor(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	r := e.do("POST", "/api/channel/add", key, map[string]any{"name": "News", "color": "rgb(26, 43, 60)"}).wantStatus(t, http.StatusOK)
	if r.Body["color"] != "#1A2B3C" {
		t.Errorf("add color %v, want #1A2B3C", r.Body["color"])
	}
	id := idOf(t, r)
	e.do("PUT", fmt.Sprintf("/api/channel/%d/update", id), key, map[string]any{"color": "RGB(255,0,7)"}).wantStatus(t, http.StatusOK)
	row := e.do("GET", "/api/channels", key, nil).list(t, "channels")[0].(map[string]any)
	if row["color"] != "#FF0007" {
		t.Errorf("updated color %v, want #FF0007", row["color"])
	}
	for _, bad := range []string{"rgb(256,0,0)", "rgb(1,2)", "rgba(1,2,3,1)", "red"} {
		e.do("PUT", fmt.Sprintf("/api/channel/%d/update", id), key, map[string]any{"color": bad}).
			wantStatus(t, http.StatusBadRequest).wantMessage(t, "color", "rgb(r,g,b)")
	}
}

func TestLinkUpdateStatusAndDescription(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	id := idOf(t, e.addLink(t, key, map[string]any{"url": "https://example.com/s", "description": "old"}))
	path := fmt.Sprintf("/api/url/%d/update", id)
	e.do("PUT", path, key, map[string]any{"status": "public", "description": "new note"}).wantStatus(t, http.StatusOK)
	if d := e.shortLinkDetails(t, key, id); d["status"] != "public" || d["description"] != "new note" {
		t.Errorf("after update: status %v, description %v", d["status"], d["description"])
	}
	e.do("PUT", path, key, map[string]any{"description": ""}).wantStatus(t, http.StatusOK)
	if d := e.shortLinkDetails(t, key, id); d["status"] != "public" || d["description"] != "" {
		t.Errorf("after clearing: %v %v", d["status"], d["description"])
	}
	for _, bad := range []map[string]any{
		{"status": "Public"}, {"status": ""}, {"status": 1},
		{"description": string(make([]byte, 501))},
	} {
		e.do("PUT", path, key, bad).wantStatus(t, http.StatusBadRequest)
	}
	if d := e.shortLinkDetails(t, key, id); d["status"] != "public" {
		t.Errorf("rejected update wrote: %v", d["status"])
	}
}

func TestLinkListUniqueClicks(t *testing.T) {
	if MaxLimit > chstore.MaxTotalsIDs {
		t.Fatalf("a page of %d links cannot be read in one uniques query (at most %d ids)", MaxLimit, chstore.MaxTotalsIDs)
	}
	e, conn := newStatsEnv(t)
	_, key := e.user("alice")
	var ids []int64
	for i := range 3 {
		ids = append(ids, idOf(t, e.addLink(t, key, map[string]any{"url": fmt.Sprintf("https://example.com/u%d", i)})))
	}
	insertHits(t, conn, ids[0], statsHits(click.KindLink))
	insertHits(t, conn, ids[1], []hit{{kind: click.KindLink, class: click.ClassHuman, visitor: 7, country: "DE", ua: "Chrome", os: "Linux"}})

	for _, q := range []string{"with=uniqueClicks", "with=uniqueclicks,&limit=10", "with=&with=uniqueClicks"} {
		items := e.do("GET", "/api/urls?"+q, key, nil).list(t, "urls")
		if len(items) != 3 {
			t.Fatalf("%s: %d rows", q, len(items))
		}
		for _, it := range items {
			row := it.(map[string]any)
			id := int64(row["id"].(float64))
			single := e.do("GET", fmt.Sprintf("/api/url/%d", id), key, nil).wantStatus(t, http.StatusOK).data(t)
			if _, ok := row["uniqueClicks"].(float64); !ok || row["uniqueClicks"] != single["uniqueClicks"] {
				t.Errorf("%s: link %d uniqueClicks %v, GET /api/url/:id says %v", q, id, row["uniqueClicks"], single["uniqueClicks"])
			}
		}
	}
	want := map[int64]float64{ids[0]: 3, ids[1]: 1, ids[2]: 0}
	for _, it := range e.do("GET", "/api/urls?with=uniqueClicks", key, nil).list(t, "urls") {
		row := it.(map[string]any)
		if id := int64(row["id"].(float64)); row["uniqueClicks"] != want[id] {
			t.Errorf("link %d: uniqueClicks %v, want %v", id, row["uniqueClicks"], want[id])
		}
	}
	for _, it := range e.do("GET", "/api/urls", key, nil).list(t, "urls") {
		if _, ok := it.(map[string]any)["uniqueClicks"]; ok {
			t.Errorf("uniqueClicks without with=: %v", it)
		}
	}
	for _, q := range []string{"with=clicks", "with=uniqueClicks,topCountries", "with=*"} {
		e.do("GET", "/api/urls?"+q, key, nil).wantStatus(t, http.StatusBadRequest).wantMessage(t, "with: unknown value")
	}

	// ClickHouse unreachable: TestStatsUnavailable.
}

// frameSite is a destination with the given response headers; it counts
// the requests it gets.
func frameSite(t *testing.T, headers map[string]string, refuseHead bool) (string, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if refuseHead && r.Method == http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		_, _ = w.Write([]byte("<!doctype html><title>site</title>"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/page", &hits
}

func TestLinkFrameWarnings(t *testing.T) {
	e := newEnv(t)
	uid, key := e.user("alice")
	fx := makeLinkFixtures(t, e, uid, "go.alice.example")
	e.srv.frameFetch = safefetch.Options{AllowAddr: func(netip.Addr) bool { return true }, Timeout: 2 * time.Second}
	deny, denyHits := frameSite(t, map[string]string{"X-Frame-Options": "DENY"}, false)
	none, _ := frameSite(t, map[string]string{"Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'"}, false)
	ok, _ := frameSite(t, nil, false)
	ours, _ := frameSite(t, map[string]string{"Content-Security-Policy": "frame-ancestors 'self' http://sho.rt"}, false)
	headRefused, _ := frameSite(t, map[string]string{"X-Frame-Options": "SAMEORIGIN"}, true)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "http://" + l.Addr().String() + "/gone"
	l.Close()

	tests := []struct {
		name string
		body map[string]any
		want []string // substrings, one per warning; nil = no "warnings" key
		// refused: the link is recorded as refusing frames (the edge then
		// serves it as a redirect).
		refused bool
	}{
		{"frame xfo deny", map[string]any{"url": deny, "type": "frame"},
			[]string{"url: http://127.0.0.1", "forbids framing (X-Frame-Options: DENY)"}, true},
		{"overlay csp none", map[string]any{"url": none, "type": fmt.Sprintf("overlay-%d", fx.overlay)},
			[]string{"forbids framing (Content-Security-Policy: frame-ancestors 'none')"}, true},
		{"frame allowed", map[string]any{"url": ok, "type": "frame"}, nil, false},
		{"frame allowed for our host", map[string]any{"url": ours, "type": "overlay"}, nil, false},
		{"head refused, get checked", map[string]any{"url": headRefused, "type": "frame"}, []string{"X-Frame-Options: SAMEORIGIN"}, true},
		{"unreachable", map[string]any{"url": unreachable, "type": "frame"}, []string{"url: http://127.0.0.1", "could not be checked"}, false},
		{"targets too", map[string]any{"url": ok, "type": "frame",
			"geotarget": []map[string]string{{"location": "de", "link": deny}}}, []string{"geotarget[0].link:", "DENY"}, true},
		{"direct is not framed", map[string]any{"url": deny + "?direct"}, nil, false},
		{"splash redirects", map[string]any{"url": deny + "?splash", "type": "splash"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.addLink(t, key, tt.body)
			checkWarnings(t, r, tt.want)
			if got := frameRefused(t, e, idOf(t, r)); got != tt.refused {
				t.Errorf("frame_refused = %v, want %v", got, tt.refused)
			}
		})
	}

	// Direct links cost no request; update checks when the type or a
	// destination changes, not for other fields.
	denyHits.Store(0)
	id := idOf(t, e.addLink(t, key, map[string]any{"url": deny, "dedupe": false}))
	if denyHits.Load() != 0 {
		t.Errorf("a direct link fetched its destination %d times", denyHits.Load())
	}
	path := fmt.Sprintf("/api/url/%d/update", id)
	checkWarnings(t, e.do("PUT", path, key, map[string]any{"type": "frame"}).wantStatus(t, http.StatusOK), []string{"X-Frame-Options: DENY"})
	if !frameRefused(t, e, id) {
		t.Error("an update to type frame did not record the refusal")
	}
	before := denyHits.Load()
	checkWarnings(t, e.do("PUT", path, key, map[string]any{"metatitle": "t"}).wantStatus(t, http.StatusOK), nil)
	if denyHits.Load() != before {
		t.Error("an update of the title checked the destination again")
	}
	checkWarnings(t, e.do("PUT", path, key, map[string]any{"url": ok}).wantStatus(t, http.StatusOK), nil)
	if d := e.shortLinkDetails(t, key, id); d["type"] != "frame" || d["longurl"] != ok {
		t.Errorf("a warning must not stop the write: %v", d)
	}
	if frameRefused(t, e, id) {
		t.Error("a destination that allows frames left the link recorded as refusing")
	}
}

func frameRefused(t *testing.T, e *testEnv, id int64) bool {
	t.Helper()
	return e.sqlInt(t, `SELECT count(*) FROM links WHERE id = $1 AND frame_refused`, id) == 1
}

func checkWarnings(t *testing.T, r response, want []string) {
	t.Helper()
	got, present := r.Body["warnings"]
	if want == nil {
		if present {
			t.Errorf("unexpected warnings %v", got)
		}
		return
	}
	list, _ := got.([]any)
	if len(list) != 1 {
		t.Fatalf("warnings %v, want one", got)
	}
	msg, _ := list[0].(string)
	for _, part := range want {
		if !strings.Contains(msg, part) {
			t.Errorf("warning %q does not contain %q", msg, part)
		}
	}
}

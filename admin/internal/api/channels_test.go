package api

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

var channelShape = map[string]string{"id": "number", "name": "string", "description": "string", "color": "string", "starred": "bool"}

func TestChannelAdd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.user("alice")
	tests := []struct {
		name   string
		body   any
		status int
		msg    string
		want   map[string]any
	}{
		{"full", map[string]any{"name": "News", "description": "All news\nlinks", "color": "#a1b2c3", "starred": true}, 200, "",
			map[string]any{"name": "News", "description": "All news\nlinks", "color": "#A1B2C3", "starred": true}},
		{"minimal", map[string]any{"name": " Min "}, 200, "",
			map[string]any{"name": "Min", "description": "", "color": "", "starred": false}},
		{"no name", map[string]any{"color": "#000000"}, 400, "name: required", nil},
		{"empty name", map[string]any{"name": ""}, 400, "name: required", nil},
		{"long name", map[string]any{"name": strings.Repeat("n", 101)}, 400, "name: must be at most 100", nil},
		{"long description", map[string]any{"name": "x", "description": strings.Repeat("d", 501)}, 400, "description: must be at most 500", nil},
		{"bad color", map[string]any{"name": "x", "color": "#GGGGGG"}, 400, "color: must be a HEX colour", nil},
		{"color no hash", map[string]any{"name": "x", "color": "a1b2c3"}, 400, "color:", nil},
		{"starred string", map[string]any{"name": "x", "starred": "true"}, 400, "starred: must be a boolean", nil},
		{"array body", `[]`, 400, "JSON object", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/api/channel/add", key, tt.body).wantStatus(t, tt.status)
			if tt.status != 200 {
				r.wantMessage(t, tt.msg)
				return
			}
			wantKeys(t, r.Body, channelShape)
			wantID(t, r)
			for k, v := range tt.want {
				if r.Body[k] != v {
					t.Errorf("%s = %#v, want %#v", k, r.Body[k], v)
				}
			}
		})
	}
	if n := e.sqlInt(t, `SELECT count(*) FROM channels`); n != 2 {
		t.Errorf("%d channels stored, want 2", n)
	}
}

func TestChannelListUpdateDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, key := e.user("alice")
	_, keyB := e.user("bob")
	c1 := wantID(t, e.do("POST", "/api/channel/add", key, map[string]any{"name": "One", "description": "d1", "color": "#111111"}))
	wantID(t, e.do("POST", "/api/channel/add", key, map[string]any{"name": "Two"}))
	wantID(t, e.do("POST", "/api/channel/add", key, map[string]any{"name": "Three"}))
	wantID(t, e.do("POST", "/api/channel/add", keyB, map[string]any{"name": "Bobs"}))

	r := e.do("GET", "/api/channels?limit=2&page=2", key, nil)
	items := r.list(t, "channels")
	if len(items) != 1 || r.data(t)["result"] != float64(3) || r.data(t)["nextpage"] != float64(0) || r.data(t)["maxpage"] != float64(2) || r.data(t)["currentpage"] != float64(2) {
		t.Fatalf("page 2: %s", r.Raw)
	}
	row := items[0].(map[string]any)
	wantKeys(t, row, channelShape)
	if len(row) != 5 || row["id"] != float64(c1) || row["name"] != "One" || row["description"] != "d1" || row["color"] != "#111111" || row["starred"] != false {
		t.Errorf("row = %v", row)
	}
	if items := e.do("GET", "/api/channels", keyB, nil).list(t, "channels"); len(items) != 1 {
		t.Errorf("bob sees %d channels, want 1", len(items))
	}

	upd := fmt.Sprintf("/api/channel/%d/update", c1)
	wantOKMessage(t, e.do("PUT", upd, key, map[string]any{"starred": true, "color": "#abcdef"}))
	wantOKMessage(t, e.do("PUT", upd, key, map[string]any{}))
	e.do("PUT", upd, key, map[string]any{"name": "New", "color": "nope"}).wantStatus(t, 400).wantMessage(t, "color:")
	e.do("PUT", upd, key, map[string]any{"name": ""}).wantStatus(t, 400).wantMessage(t, "name: required")
	e.do("PUT", upd, key, map[string]any{"description": strings.Repeat("d", 501)}).wantStatus(t, 400).wantMessage(t, "description:")
	row = e.do("GET", "/api/channels?limit=1&page=3", key, nil).list(t, "channels")[0].(map[string]any)
	if row["name"] != "One" || row["description"] != "d1" || row["color"] != "#ABCDEF" || row["starred"] != true {
		t.Errorf("after updates: %v", row)
	}
	wantOKMessage(t, e.do("PUT", upd, key, map[string]any{"name": "Uno", "description": "", "color": ""}))
	row = e.do("GET", "/api/channels?limit=1&page=3", key, nil).list(t, "channels")[0].(map[string]any)
	if row["name"] != "Uno" || row["description"] != "" || row["color"] != "" || row["starred"] != true {
		t.Errorf("after clearing: %v", row)
	}

	del := fmt.Sprintf("/api/channel/%d/delete", c1)
	e.do("PUT", upd, keyB, map[string]any{"name": "x"}).wantStatus(t, 404).wantMessage(t, "channel not found")
	e.do("DELETE", del, keyB, nil).wantStatus(t, 404).wantMessage(t, "channel not found")
	e.do("GET", fmt.Sprintf("/api/channel/%d", c1), keyB, nil).wantStatus(t, 404).wantMessage(t, "channel not found")
	for _, bad := range badIDs {
		e.do("PUT", "/api/channel/"+bad+"/update", key, map[string]any{"name": "x"}).wantStatus(t, 404)
		e.do("DELETE", "/api/channel/"+bad+"/delete", key, nil).wantStatus(t, 404)
		e.do("GET", "/api/channel/"+bad, key, nil).wantStatus(t, 404).wantMessage(t, "channel not found")
	}

	// Delete: the items stay, unassigned.
	l := e.sqlLink(t, alice, "kept")
	q := e.sqlQR(t, alice, "qrkept", "Q")
	b := wantID(t, e.do("POST", "/api/bio/add", key, map[string]any{"alias": "mine"}))
	for _, p := range []string{fmt.Sprintf("links/%d", l), fmt.Sprintf("qr/%d", q), fmt.Sprintf("bio/%d", b)} {
		wantOKMessage(t, e.do("POST", fmt.Sprintf("/api/channel/%d/assign/%s", c1, p), key, nil))
	}
	wantOKMessage(t, e.do("DELETE", del, key, nil))
	for _, tbl := range []string{"links", "qr_codes", "bio_pages"} {
		if n := e.sqlInt(t, `SELECT count(*) FROM `+tbl+` WHERE channel_id IS NULL`); n != 1 {
			t.Errorf("%s: %d unassigned rows, want 1", tbl, n)
		}
	}
	e.do("DELETE", del, key, nil).wantStatus(t, 404)
	e.do("GET", fmt.Sprintf("/api/channel/%d", c1), key, nil).wantStatus(t, 404)
}

var itemDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

func TestChannelItems(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, key := e.user("alice")
	bob, keyB := e.user("bob")
	ch := wantID(t, e.do("POST", "/api/channel/add", key, map[string]any{"name": "Mix"}))
	ch2 := wantID(t, e.do("POST", "/api/channel/add", key, map[string]any{"name": "Other"}))
	chB := wantID(t, e.do("POST", "/api/channel/add", keyB, map[string]any{"name": "Bobs"}))
	dom := wantID(t, e.do("POST", "/api/domain/add", key, map[string]any{"domain": "https://go.example.com"}))

	// Five items of three kinds with distinct creation dates.
	lPlain := e.sqlLink(t, alice, "plain")
	lMeta := e.sqlInt(t, `INSERT INTO links (user_id, domain_id, host, alias, long_url, meta_title) VALUES ($1, $2, 'go.example.com', 'brand', 'https://example.com/long?q=1', 'Meta Title') RETURNING id`, alice, dom)
	qr := e.sqlQR(t, alice, "Qc0de", "My QR")
	bio := wantID(t, e.do("POST", "/api/bio/add", key, map[string]any{"title": "About me", "alias": "mine"}))
	bioNoTitle := wantID(t, e.do("POST", "/api/bio/add", key, map[string]any{"alias": "second"}))
	dates := []struct {
		table string
		id    int64
		at    string
	}{
		{"links", lPlain, "2024-01-01 10:00:00+00"},
		{"qr_codes", qr, "2024-01-02 10:00:00+00"},
		{"bio_pages", bio, "2024-01-03 10:00:00+00"},
		{"links", lMeta, "2024-01-04 10:00:00+00"},
		{"bio_pages", bioNoTitle, "2024-01-05 23:30:00+00"},
	}
	for _, d := range dates {
		e.sqlExec(t, `UPDATE `+d.table+` SET created_at = $2 WHERE id = $1`, d.id, d.at)
	}
	// Foreign and unassigned items must never show.
	lBob := e.sqlLink(t, bob, "bobs")
	qrBob := e.sqlQR(t, bob, "bobqr", "B")
	e.sqlLink(t, alice, "unassigned")

	assign := func(k string, c int64, kind string, id int64) response {
		t.Helper()
		return e.do("POST", fmt.Sprintf("/api/channel/%d/assign/%s/%d", c, kind, id), k, nil)
	}
	// Everything into ch2 first, then moved to ch: assignment moves.
	for _, it := range []struct {
		kind string
		id   int64
	}{{"links", lPlain}, {"links", lMeta}, {"qr", qr}, {"bio", bio}, {"bio", bioNoTitle}} {
		wantOKMessage(t, assign(key, ch2, it.kind, it.id))
		wantOKMessage(t, assign(key, ch, it.kind, it.id))
	}
	if items := e.do("GET", fmt.Sprintf("/api/channel/%d", ch2), key, nil).list(t, "items"); len(items) != 0 {
		t.Errorf("ch2 still has %d items after moving them", len(items))
	}

	// Isolation on assign: every mix of own and foreign ids is a 404 naming what is missing.
	bioBob := wantID(t, e.do("POST", "/api/bio/add", keyB, map[string]any{"alias": "mine"}))
	isolation := []struct {
		name string
		r    response
		msg  string
	}{
		{"foreign link", assign(key, ch, "links", lBob), "link not found"},
		{"foreign qr", assign(key, ch, "qr", qrBob), "qr code not found"},
		{"foreign bio", assign(key, ch, "bio", bioBob), "bio page not found"},
		{"foreign channel own link", assign(key, chB, "links", lPlain), "channel not found"},
		{"foreign channel own qr", assign(key, chB, "qr", qr), "channel not found"},
		{"bob into alice's channel", assign(keyB, ch, "links", lBob), "channel not found"},
		{"bob takes alice's link", assign(keyB, chB, "links", lPlain), "link not found"},
		{"unknown bio", assign(key, ch, "bio", 987654), "bio page not found"},
		{"link id as qr", assign(key, ch, "qr", lPlain+1000), "qr code not found"},
	}
	for _, tt := range isolation {
		t.Run(tt.name, func(t *testing.T) { tt.r.wantStatus(t, 404).wantMessage(t, tt.msg) })
	}
	e.do("POST", fmt.Sprintf("/api/channel/%d/assign/pixels/%d", ch, lPlain), key, nil).wantStatus(t, 400).wantMessage(t, "type: must be one of: links, bio, qr")
	e.do("POST", fmt.Sprintf("/api/channel/%d/assign/links/abc", ch), key, nil).wantStatus(t, 404).wantMessage(t, "link not found")
	e.do("POST", fmt.Sprintf("/api/channel/x/assign/links/%d", lPlain), key, nil).wantStatus(t, 404).wantMessage(t, "channel not found")
	e.do("GET", fmt.Sprintf("/api/channel/%d", ch), keyB, nil).wantStatus(t, 404)
	for table, id := range map[string]int64{"links": lBob, "qr_codes": qrBob, "bio_pages": bioBob} {
		if got := e.sqlInt(t, `SELECT channel_id FROM `+table+` WHERE id = $1`, id); got != -1 {
			t.Errorf("bob's %s row got channel %d", table, got)
		}
	}

	// Newest first across kinds, paged.
	want := []map[string]any{
		{"type": "bio", "id": float64(bioNoTitle), "title": "second", "link": "http://sho.rt/u/alice/bio/second", "preview": "http://sho.rt/u/alice/bio/second", "date": "2024-01-05"},
		{"type": "links", "id": float64(lMeta), "title": "Meta Title", "link": "https://go.example.com/brand", "preview": "https://example.com/long?q=1", "date": "2024-01-04"},
		{"type": "bio", "id": float64(bio), "title": "About me", "link": "http://sho.rt/u/alice/bio/mine", "preview": "http://sho.rt/u/alice/bio/mine", "date": "2024-01-03"},
		{"type": "qr", "id": float64(qr), "title": "My QR", "link": "http://sho.rt/qr/Qc0de", "preview": "http://sho.rt/qr/Qc0de", "date": "2024-01-02"},
		{"type": "links", "id": float64(lPlain), "title": "plain", "link": "http://sho.rt/plain", "preview": "https://example.com/plain", "date": "2024-01-01"},
	}
	var got []any
	for page := 1; page <= 3; page++ {
		r := e.do("GET", fmt.Sprintf("/api/channel/%d?limit=2&page=%d", ch, page), key, nil)
		items := r.list(t, "items")
		d := r.data(t)
		wantNext := float64(page + 1)
		if page == 3 {
			wantNext = 0
		}
		if d["result"] != float64(5) || d["maxpage"] != float64(3) || d["nextpage"] != wantNext || d["perpage"] != float64(2) {
			t.Errorf("page %d envelope: %v", page, d)
		}
		got = append(got, items...)
	}
	if len(got) != len(want) {
		t.Fatalf("%d items over all pages, want %d", len(got), len(want))
	}
	for i, w := range want {
		it := got[i].(map[string]any)
		wantKeys(t, it, map[string]string{"type": "string", "id": "number", "title": "string", "preview": "string", "link": "string", "date": "string"})
		if !itemDate.MatchString(it["date"].(string)) {
			t.Errorf("item %d date %v", i, it["date"])
		}
		for k, v := range w {
			if it[k] != v {
				t.Errorf("item %d: %s = %#v, want %#v", i, k, it[k], v)
			}
		}
	}
	if items := e.do("GET", fmt.Sprintf("/api/channel/%d?page=9", ch), key, nil).list(t, "items"); len(items) != 0 {
		t.Errorf("page beyond maxpage has %d items", len(items))
	}
	e.do("GET", fmt.Sprintf("/api/channel/%d?limit=101", ch), key, nil).wantStatus(t, 400).wantMessage(t, "limit")

	// Extension: DELETE on the assign address takes one item out.
	remove := func(k string, c int64, kind string, id int64) response {
		t.Helper()
		return e.do("DELETE", fmt.Sprintf("/api/channel/%d/assign/%s/%d", c, kind, id), k, nil)
	}
	removals := []struct {
		name   string
		r      func() response
		status int
		msg    string
	}{
		{"own link", func() response { return remove(key, ch, "links", lMeta) }, 200, "link removed from channel"},
		{"again", func() response { return remove(key, ch, "links", lMeta) }, 200, "link was not in this channel"},
		{"own qr", func() response { return remove(key, ch, "qr", qr) }, 200, "qr code removed from channel"},
		{"own bio from the other channel", func() response { return remove(key, ch2, "bio", bio) }, 200, "bio page was not in this channel"},
		{"foreign link", func() response { return remove(key, ch, "links", lBob) }, 404, "link not found"},
		{"bob on alice's channel", func() response { return remove(keyB, ch, "links", lPlain) }, 404, "channel not found"},
		{"bob's channel, alice's bio", func() response { return remove(keyB, chB, "bio", bio) }, 404, "bio page not found"},
		{"unknown qr", func() response { return remove(key, ch, "qr", 987654) }, 404, "qr code not found"},
		{"bad type", func() response { return remove(key, ch, "pixels", lPlain) }, 400, "type: must be one of: links, bio, qr"},
	}
	for _, tt := range removals {
		r := tt.r()
		if tt.status == 200 {
			wantOKMessage(t, r)
		}
		r.wantStatus(t, tt.status).wantMessage(t, tt.msg)
	}
	if got := e.sqlInt(t, `SELECT channel_id FROM links WHERE id = $1`, lMeta); got != -1 {
		t.Errorf("removed link still in channel %d", got)
	}
	if got := e.sqlInt(t, `SELECT channel_id FROM bio_pages WHERE id = $1`, bio); got != ch {
		t.Errorf("bio page moved to %d by a removal from another channel", got)
	}
	if items := e.do("GET", fmt.Sprintf("/api/channel/%d", ch), key, nil).list(t, "items"); len(items) != 3 {
		t.Errorf("%d items left, want 3", len(items))
	}
}

func TestBioPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.user("alice")
	_, keyB := e.user("bob")
	tests := []struct {
		name   string
		key    string
		body   any
		status int
		msg    string
	}{
		{"ok", key, map[string]any{"title": "Me", "alias": "alice-me"}, 200, ""},
		{"no title", key, map[string]any{"alias": "other"}, 200, ""},
		{"same alias other user", keyB, map[string]any{"alias": "ALICE-me"}, 200, ""},
		{"taken alias other case", key, map[string]any{"alias": "Alice-Me"}, 409, "alias: you already have a bio page with this alias"},
		{"no alias", key, map[string]any{"title": "x"}, 400, "alias: required"},
		{"bad alias", key, map[string]any{"alias": "a b"}, 400, "alias: must be 3 to 64"},
		{"digit alias", key, map[string]any{"alias": "123"}, 400, "alias:"},
		{"long title", key, map[string]any{"alias": "okay", "title": strings.Repeat("t", 201)}, 400, "title: must be at most 200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/api/bio/add", tt.key, tt.body).wantStatus(t, tt.status)
			if tt.status != 200 {
				r.wantMessage(t, tt.msg)
				return
			}
			wantKeys(t, r.Body, map[string]string{"error": "number", "id": "number"})
		})
	}
	r := e.do("GET", "/api/bio?limit=1", key, nil)
	items := r.list(t, "bio")
	if len(items) != 1 || r.data(t)["result"] != float64(2) {
		t.Fatalf("list: %s", r.Raw)
	}
	row := items[0].(map[string]any)
	wantKeys(t, row, map[string]string{"id": "number", "title": "string", "alias": "string", "channel": "bool", "link": "string", "date": "string"})
	if row["alias"] != "other" || row["link"] != "http://sho.rt/u/alice/bio/other" {
		t.Errorf("row = %v", row)
	}
	ch := wantID(t, e.do("POST", "/api/channel/add", key, map[string]any{"name": "C"}))
	wantOKMessage(t, e.do("POST", fmt.Sprintf("/api/channel/%d/assign/bio/%d", ch, int64(row["id"].(float64))), key, nil))
	row = e.do("GET", "/api/bio?limit=1", key, nil).list(t, "bio")[0].(map[string]any)
	if row["channel"] != float64(ch) {
		t.Errorf("channel = %#v, want %d", row["channel"], ch)
	}
	if items := e.do("GET", "/api/bio", keyB, nil).list(t, "bio"); len(items) != 1 {
		t.Errorf("bob sees %d bio pages, want 1", len(items))
	}
}

package api

import (
	"fmt"
	"strings"
	"testing"
)

var campaignShape = map[string]string{"error": "number", "id": "number", "domain": "string", "public": "bool", "list": "string"}

func TestCampaignAdd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.user("alice")
	_, keyB := e.user("bob")
	tests := []struct {
		name    string
		body    any
		status  int
		msg     string
		domain  string
		public  bool
		rotator any    // string or false
		list    string // "%d" is the id
	}{
		{"slug", map[string]any{"name": "Sale", "slug": "Sale-2024", "public": true}, 200, "", "Sale", true, "http://sho.rt/r/Sale-2024", "http://sho.rt/u/alice/Sale-2024"},
		{"no slug", map[string]any{"name": "Plain"}, 200, "", "Plain", false, false, "http://sho.rt/u/alice/%d"},
		{"empty body", map[string]any{}, 200, "", "", false, false, "http://sho.rt/u/alice/%d"},
		{"empty slug", map[string]any{"name": "E", "slug": ""}, 200, "", "E", false, false, "http://sho.rt/u/alice/%d"},
		{"taken slug other case", map[string]any{"name": "x", "slug": "sale-2024"}, 409, "slug: sale-2024 is already taken", "", false, nil, ""},
		{"digits slug", map[string]any{"slug": "12345"}, 400, "slug: must be 3 to 64 letters", "", false, nil, ""},
		{"short slug", map[string]any{"slug": "ab"}, 400, "slug:", "", false, nil, ""},
		{"long slug", map[string]any{"slug": strings.Repeat("s", 65)}, 400, "slug:", "", false, nil, ""},
		{"slash slug", map[string]any{"slug": "a/b/c"}, 400, "slug:", "", false, nil, ""},
		{"long name", map[string]any{"name": strings.Repeat("n", 101)}, 400, "name: must be at most 100", "", false, nil, ""},
		{"public string", map[string]any{"public": "yes"}, 400, "public: must be a boolean", "", false, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/api/campaign/add", key, tt.body).wantStatus(t, tt.status)
			if tt.status != 200 {
				r.wantMessage(t, tt.msg)
				return
			}
			wantKeys(t, r.Body, campaignShape)
			id := wantID(t, r)
			list := tt.list
			if strings.Contains(list, "%d") {
				list = fmt.Sprintf(list, id)
			}
			if r.Body["domain"] != tt.domain || r.Body["public"] != tt.public || r.Body["rotator"] != tt.rotator || r.Body["list"] != list {
				t.Errorf("body %s", r.Raw)
			}
		})
	}
	// Slugs are unique across users.
	e.do("POST", "/api/campaign/add", keyB, map[string]any{"slug": "SALE-2024"}).wantStatus(t, 409).wantMessage(t, "slug:")
	if n := e.sqlInt(t, `SELECT count(*) FROM campaigns`); n != 4 {
		t.Errorf("%d campaigns, want 4", n)
	}
}

func TestCampaignListUpdateDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, key := e.user("alice")
	_, keyB := e.user("bob")
	c1 := wantID(t, e.do("POST", "/api/campaign/add", key, map[string]any{"name": "One", "slug": "one-slug"}))
	c2 := wantID(t, e.do("POST", "/api/campaign/add", key, map[string]any{"name": "Two", "public": true}))
	wantID(t, e.do("POST", "/api/campaign/add", keyB, map[string]any{"name": "Bobs", "slug": "bobs"}))

	r := e.do("GET", "/api/campaigns?limit=1", key, nil)
	items := r.list(t, "campaigns")
	if len(items) != 1 || r.data(t)["result"] != float64(2) || r.data(t)["nextpage"] != float64(2) {
		t.Fatalf("page 1: %s", r.Raw)
	}
	row := items[0].(map[string]any)
	wantKeys(t, row, map[string]string{"id": "number", "name": "string", "domain": "string", "public": "bool", "rotator": "bool", "list": "string"})
	if row["id"] != float64(c2) || row["name"] != "Two" || row["domain"] != "Two" || row["public"] != true || row["rotator"] != false ||
		row["list"] != fmt.Sprintf("http://sho.rt/u/alice/%d", c2) {
		t.Errorf("row = %v", row)
	}
	row = e.do("GET", "/api/campaigns?limit=1&page=2", key, nil).list(t, "campaigns")[0].(map[string]any)
	if row["rotator"] != "http://sho.rt/r/one-slug" || row["list"] != "http://sho.rt/u/alice/one-slug" {
		t.Errorf("row 2 = %v", row)
	}

	upd := fmt.Sprintf("/api/campaign/%d/update", c1)
	tests := []struct {
		name    string
		body    any
		status  int
		msg     string
		rotator any
		public  bool
	}{
		{"no name", map[string]any{"slug": "x-y-z"}, 400, "name: required", nil, false},
		{"blank name", map[string]any{"name": " "}, 400, "name: required", nil, false},
		{"taken slug", map[string]any{"name": "One", "slug": "BOBS"}, 409, "slug: BOBS is already taken", nil, false},
		{"bad slug", map[string]any{"name": "One", "slug": "!!!"}, 400, "slug:", nil, false},
		{"rename keeps slug", map[string]any{"name": "Uno"}, 200, "", "http://sho.rt/r/one-slug", false},
		{"case change of own slug", map[string]any{"name": "Uno", "slug": "One-Slug", "public": true}, 200, "", "http://sho.rt/r/One-Slug", true},
		{"remove rotator", map[string]any{"name": "Uno", "slug": ""}, 200, "", false, true},
		{"new slug", map[string]any{"name": "Uno", "slug": "uno", "public": false}, 200, "", "http://sho.rt/r/uno", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("PUT", upd, key, tt.body).wantStatus(t, tt.status)
			if tt.status != 200 {
				r.wantMessage(t, tt.msg)
				return
			}
			wantKeys(t, r.Body, campaignShape)
			if r.Body["id"] != float64(c1) || r.Body["domain"] != "Uno" || r.Body["rotator"] != tt.rotator || r.Body["public"] != tt.public {
				t.Errorf("body %s", r.Raw)
			}
			list := fmt.Sprintf("http://sho.rt/u/alice/%d", c1)
			if s, ok := tt.rotator.(string); ok {
				list = "http://sho.rt/u/alice/" + s[strings.LastIndexByte(s, '/')+1:]
			}
			if r.Body["list"] != list {
				t.Errorf("list = %v, want %s", r.Body["list"], list)
			}
		})
	}
	// The freed slug is available to others.
	wantID(t, e.do("POST", "/api/campaign/add", keyB, map[string]any{"slug": "one-slug"}))

	e.do("PUT", upd, keyB, map[string]any{"name": "x"}).wantStatus(t, 404).wantMessage(t, "campaign not found")
	e.do("DELETE", fmt.Sprintf("/api/campaign/%d/delete", c1), keyB, nil).wantStatus(t, 404).wantMessage(t, "campaign not found")
	for _, bad := range badIDs {
		e.do("PUT", "/api/campaign/"+bad+"/update", key, map[string]any{"name": "x"}).wantStatus(t, 404)
		e.do("DELETE", "/api/campaign/"+bad+"/delete", key, nil).wantStatus(t, 404)
	}

	// Delete leaves its links in place, unassigned.
	l := e.sqlLink(t, alice, "inc1")
	wantOKMessage(t, e.do("POST", fmt.Sprintf("/api/campaign/%d/assign/%d", c1, l), key, nil))
	wantOKMessage(t, e.do("DELETE", fmt.Sprintf("/api/campaign/%d/delete", c1), key, nil))
	if got := e.sqlInt(t, `SELECT campaign_id FROM links WHERE id = $1`, l); got != -1 {
		t.Errorf("campaign_id after delete = %d, want NULL", got)
	}
	e.do("DELETE", fmt.Sprintf("/api/campaign/%d/delete", c1), key, nil).wantStatus(t, 404)
	if items := e.do("GET", "/api/campaigns", keyB, nil).list(t, "campaigns"); len(items) != 2 {
		t.Errorf("bob sees %d campaigns, want his 2", len(items))
	}
}

func TestCampaignAssign(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, key := e.user("alice")
	bob, keyB := e.user("bob")
	ca := wantID(t, e.do("POST", "/api/campaign/add", key, map[string]any{"name": "A"}))
	ca2 := wantID(t, e.do("POST", "/api/campaign/add", key, map[string]any{"name": "A2"}))
	cb := wantID(t, e.do("POST", "/api/campaign/add", keyB, map[string]any{"name": "B"}))
	la := e.sqlLink(t, alice, "la")
	lb := e.sqlLink(t, bob, "lb")
	path := func(c, l int64) string { return fmt.Sprintf("/api/campaign/%d/assign/%d", c, l) }

	wantOKMessage(t, e.do("POST", path(ca, la), key, nil))
	if got := e.sqlInt(t, `SELECT campaign_id FROM links WHERE id = $1`, la); got != ca {
		t.Fatalf("campaign_id = %d, want %d", got, ca)
	}
	wantOKMessage(t, e.do("POST", path(ca2, la), key, nil)) // moves it
	if got := e.sqlInt(t, `SELECT campaign_id FROM links WHERE id = $1`, la); got != ca2 {
		t.Fatalf("campaign_id = %d, want %d", got, ca2)
	}
	tests := []struct {
		name string
		path string
		msg  string
	}{
		{"foreign link", path(ca, lb), "link not found"},
		{"foreign campaign", path(cb, la), "campaign not found"},
		{"both foreign", path(cb, lb), "campaign not found"},
		{"unknown link", path(ca, 999999), "link not found"},
		{"unknown campaign", path(999999, la), "campaign not found"},
		{"garbage link", fmt.Sprintf("/api/campaign/%d/assign/x", ca), "link not found"},
		{"garbage campaign", fmt.Sprintf("/api/campaign/0/assign/%d", la), "campaign not found"},
	}
	for _, method := range []string{"POST", "DELETE"} {
		for _, tt := range tests {
			t.Run(method+" "+tt.name, func(t *testing.T) {
				e.do(method, tt.path, key, nil).wantStatus(t, 404).wantMessage(t, tt.msg)
			})
		}
	}
	if got := e.sqlInt(t, `SELECT campaign_id FROM links WHERE id = $1`, lb); got != -1 {
		t.Errorf("bob's link got campaign %d", got)
	}
	if got := e.sqlInt(t, `SELECT campaign_id FROM links WHERE id = $1`, la); got != ca2 {
		t.Errorf("alice's link moved to %d by a refused request", got)
	}
	e.do("GET", path(ca, la), key, nil).wantStatus(t, 405)

	// Extension: DELETE takes the link out; from a campaign it is not in,
	// nothing changes.
	wantOKMessage(t, e.do("DELETE", path(ca, la), key, nil))
	e.do("DELETE", path(ca, la), key, nil).wantMessage(t, "link was not in this campaign")
	if got := e.sqlInt(t, `SELECT campaign_id FROM links WHERE id = $1`, la); got != ca2 {
		t.Fatalf("removing from another campaign moved the link to %d", got)
	}
	e.do("DELETE", path(ca2, la), key, nil).wantStatus(t, 200).wantMessage(t, "link removed from campaign")
	if got := e.sqlInt(t, `SELECT campaign_id FROM links WHERE id = $1`, la); got != -1 {
		t.Fatalf("link still in campaign %d", got)
	}
	e.do("DELETE", path(ca2, la), key, nil).wantStatus(t, 200).wantMessage(t, "link was not in this campaign")
}

package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"kurz/shared/pgstore/pgtest"
)

// sqlExec runs a statement on the test database (fixtures the link and QR
// endpoints, written elsewhere, would otherwise create).
func (e *testEnv) sqlExec(t *testing.T, query string, args ...any) {
	t.Helper()
	if _, err := pgtest.Pool(e.store).Exec(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// sqlInt runs a query returning one integer (NULL reads as -1).
func (e *testEnv) sqlInt(t *testing.T, query string, args ...any) int64 {
	t.Helper()
	var n *int64
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if n == nil {
		return -1
	}
	return *n
}

// sqlLink inserts a link of user on the default domain and returns its id.
func (e *testEnv) sqlLink(t *testing.T, userID int64, alias string) int64 {
	t.Helper()
	return e.sqlInt(t, `INSERT INTO links (user_id, alias, long_url) VALUES ($1, $2, $3) RETURNING id`,
		userID, alias, "https://example.com/"+alias)
}

// sqlQR inserts a QR code of user and returns its id.
func (e *testEnv) sqlQR(t *testing.T, userID int64, code, name string) int64 {
	t.Helper()
	return e.sqlInt(t, `INSERT INTO qr_codes (user_id, code, name, type, data, content) VALUES ($1, $2, $3, 'text', '"hi"', 'hi') RETURNING id`,
		userID, code, name)
}

// badIDs are path ids that must all be 404 like an unknown id.
var badIDs = []string{"abc", "0", "-1", "01", "+1", "1.5", "99999999999999999999", "424242"}

// wantID checks an add response {"error":0,"id":N} and returns N.
func wantID(t *testing.T, r response) int64 {
	t.Helper()
	r.wantStatus(t, http.StatusOK)
	if r.Body["error"] != float64(0) {
		t.Fatalf(`"error" must be 0, got %s`, r.Raw)
	}
	id, ok := r.Body["id"].(float64)
	if !ok || id <= 0 {
		t.Fatalf("id must be a positive integer, got %s", r.Raw)
	}
	return int64(id)
}

// wantOKMessage checks a {"error":0,"message":"..."} success.
func wantOKMessage(t *testing.T, r response) {
	t.Helper()
	r.wantStatus(t, http.StatusOK)
	if r.Body["error"] != float64(0) || r.Body["message"] == "" || r.Body["message"] == nil {
		t.Fatalf("want error 0 and a message, got %s", r.Raw)
	}
}

func TestDomainAdd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.user("alice")
	_, keyB := e.user("bob")
	tests := []struct {
		name   string
		body   any
		status int
		msg    string
		domain string // stored domain on success
		host   string
	}{
		{"plain", map[string]any{"domain": "https://go.example.com"}, 200, "", "https://go.example.com", "go.example.com"},
		{"normalised", map[string]any{"domain": "HTTPS://Links.Example.ORG:443/"}, 200, "", "https://links.example.org", "links.example.org"},
		{"port kept", map[string]any{"domain": "http://p.example.com:8080", "redirectroot": "https://example.com/home", "redirect404": ""}, 200, "", "http://p.example.com:8080", "p.example.com:8080"},
		{"missing", map[string]any{}, 400, "domain: required", "", ""},
		{"empty", map[string]any{"domain": ""}, 400, "domain: required", "", ""},
		{"no scheme", map[string]any{"domain": "go.example.com"}, 400, "domain: must be an absolute http or https URL", "", ""},
		{"ftp", map[string]any{"domain": "ftp://go.example.com"}, 400, "domain:", "", ""},
		{"path", map[string]any{"domain": "https://x.example.com/path"}, 400, "domain: must be only scheme and host", "", ""},
		{"query", map[string]any{"domain": "https://x.example.com?a=b"}, 400, "domain: must be only scheme and host", "", ""},
		{"fragment", map[string]any{"domain": "https://x.example.com#f"}, 400, "domain: must be only scheme and host", "", ""},
		{"userinfo", map[string]any{"domain": "https://u:p@x.example.com"}, 400, "domain:", "", ""},
		{"bad port", map[string]any{"domain": "https://x.example.com:99999"}, 400, "domain: must have a port", "", ""},
		{"unicode host", map[string]any{"domain": "https://bücher.example"}, 400, "domain: must use the ASCII", "", ""},
		{"default domain", map[string]any{"domain": "http://sho.rt"}, 400, "default short domain", "", ""},
		{"default domain other scheme", map[string]any{"domain": "https://SHO.RT:443/"}, 400, "default short domain", "", ""},
		{"bad redirectroot", map[string]any{"domain": "https://y.example.com", "redirectroot": "javascript:alert(1)"}, 400, "redirectroot: must be an absolute http or https URL", "", ""},
		{"bad redirect404", map[string]any{"domain": "https://y.example.com", "redirect404": "ftp://x"}, 400, "redirect404:", "", ""},
		{"root loop", map[string]any{"domain": "https://y.example.com", "redirectroot": "https://Y.example.com/"}, 400, "redirectroot: must not point at the domain's own root", "", ""},
		{"root loop with query", map[string]any{"domain": "https://y.example.com", "redirectroot": "https://y.example.com/?from=root"}, 400, "redirectroot: must not point at the domain's own root", "", ""},
		{"root loop dot segment", map[string]any{"domain": "https://y.example.com", "redirectroot": "https://y.example.com/./"}, 400, "redirectroot: must not point at the domain's own root", "", ""},
		{"root loop double slash", map[string]any{"domain": "https://y.example.com", "redirectroot": "https://y.example.com//"}, 400, "redirectroot: must not point at the domain's own root", "", ""},
		{"root loop dot dot", map[string]any{"domain": "https://y.example.com", "redirectroot": "https://y.example.com/a/../?x=1"}, 400, "redirectroot: must not point at the domain's own root", "", ""},
		{"404 loop", map[string]any{"domain": "https://y.example.com", "redirect404": "https://y.example.com./missing"}, 400, "redirect404: must not point at the domain itself", "", ""},
		{"wrong type", map[string]any{"domain": 5}, 400, "domain: must be a string", "", ""},
		{"duplicate", map[string]any{"domain": "https://go.example.com"}, 409, "domain: already registered", "", ""},
		{"duplicate other scheme", map[string]any{"domain": "http://GO.example.com"}, 409, "domain: already registered", "", ""},
		// The edge ignores a Host header's port when no domain claims it
		// exactly: another port of a taken name would answer for it.
		{"duplicate name other port", map[string]any{"domain": "https://go.example.com:8443"}, 409, "domain: already registered", "", ""},
		{"duplicate name without port", map[string]any{"domain": "http://p.example.com"}, 409, "domain: already registered", "", ""},
		{"default domain with port", map[string]any{"domain": "https://sho.rt:8443"}, 400, "default short domain", "", ""},
		{"default domain with port 80 on https", map[string]any{"domain": "https://sho.rt:80"}, 400, "default short domain", "", ""},
		{"default domain trailing dot", map[string]any{"domain": "https://sho.rt.:8443"}, 400, "default short domain", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/api/domain/add", key, tt.body).wantStatus(t, tt.status)
			if tt.status != 200 {
				r.wantMessage(t, tt.msg)
				return
			}
			wantKeys(t, r.Body, map[string]string{"error": "number", "id": "number"})
			id := wantID(t, r)
			var dom, host string
			if err := pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT domain, host FROM domains WHERE id = $1`, id).Scan(&dom, &host); err != nil {
				t.Fatal(err)
			}
			if dom != tt.domain || host != tt.host {
				t.Errorf("stored %q %q, want %q %q", dom, host, tt.domain, tt.host)
			}
		})
	}
	// Duplicates are refused across users too, and failed adds wrote nothing.
	e.do("POST", "/api/domain/add", keyB, map[string]any{"domain": "https://go.example.com"}).wantStatus(t, 409).wantMessage(t, "domain: already registered")
	if n := e.sqlInt(t, `SELECT count(*) FROM domains`); n != 3 {
		t.Errorf("%d domains stored, want 3", n)
	}
}

func TestDomainListPagingIsolation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.user("alice")
	_, keyB := e.user("bob")
	for i := 1; i <= 3; i++ {
		wantID(t, e.do("POST", "/api/domain/add", key, map[string]any{"domain": fmt.Sprintf("https://d%d.example.com", i), "redirect404": "https://example.com/404"}))
	}
	r := e.do("GET", "/api/domains?limit=2", key, nil)
	items := r.list(t, "domains")
	d := r.data(t)
	if len(items) != 2 || d["result"] != float64(3) || d["nextpage"] != float64(2) || d["maxpage"] != float64(2) || d["perpage"] != float64(2) || d["currentpage"] != float64(1) {
		t.Fatalf("page 1: %s", r.Raw)
	}
	row := items[0].(map[string]any)
	wantKeys(t, row, map[string]string{"id": "number", "domain": "string", "redirectroot": "string", "redirect404": "string"})
	if len(row) != 4 || row["domain"] != "https://d3.example.com" || row["redirect404"] != "https://example.com/404" || row["redirectroot"] != "" {
		t.Errorf("newest row = %v", row)
	}
	r = e.do("GET", "/api/domains?limit=2&page=2", key, nil)
	if items := r.list(t, "domains"); len(items) != 1 || r.data(t)["nextpage"] != float64(0) {
		t.Errorf("page 2: %s", r.Raw)
	}
	if items := e.do("GET", "/api/domains?limit=2&page=3", key, nil).list(t, "domains"); len(items) != 0 {
		t.Errorf("page 3 has %d items", len(items))
	}
	r = e.do("GET", "/api/domains", keyB, nil)
	if items := r.list(t, "domains"); len(items) != 0 || r.data(t)["result"] != float64(0) || r.data(t)["maxpage"] != float64(1) {
		t.Errorf("bob sees %s", r.Raw)
	}
	e.do("GET", "/api/domains?limit=0", key, nil).wantStatus(t, 400).wantMessage(t, "limit")
}

func TestDomainUpdate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.user("alice")
	_, keyB := e.user("bob")
	id := wantID(t, e.do("POST", "/api/domain/add", key, map[string]any{"domain": "https://go.example.com",
		"redirectroot": "https://example.com/root", "redirect404": "https://example.com/404"}))
	path := fmt.Sprintf("/api/domain/%d/update", id)
	get := func() map[string]any {
		t.Helper()
		return e.do("GET", "/api/domains", key, nil).list(t, "domains")[0].(map[string]any)
	}
	tests := []struct {
		name         string
		body         any
		status       int
		msg          string
		root, notFnd string
	}{
		{"only root", map[string]any{"redirectroot": "https://example.com/new"}, 200, "", "https://example.com/new", "https://example.com/404"},
		{"only 404", map[string]any{"redirect404": "https://example.com/nf"}, 200, "", "https://example.com/new", "https://example.com/nf"},
		{"clear root", map[string]any{"redirectroot": ""}, 200, "", "", "https://example.com/nf"},
		{"both", map[string]any{"redirectroot": "https://a.example/", "redirect404": ""}, 200, "", "https://a.example/", ""},
		{"nothing", map[string]any{}, 400, "redirectroot: send redirectroot and/or redirect404", "https://a.example/", ""},
		{"domain change", map[string]any{"domain": "https://x.example.com"}, 400, "domain: cannot be changed", "https://a.example/", ""},
		{"bad root keeps both", map[string]any{"redirectroot": "data:text/html,x", "redirect404": "https://ok.example/"}, 400, "redirectroot:", "https://a.example/", ""},
		{"bad 404", map[string]any{"redirect404": "no"}, 400, "redirect404:", "https://a.example/", ""},
		{"loop", map[string]any{"redirectroot": "https://go.example.com"}, 400, "redirect loop", "https://a.example/", ""},
		{"wrong type", map[string]any{"redirect404": true}, 400, "redirect404: must be a string", "https://a.example/", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("PUT", path, key, tt.body).wantStatus(t, tt.status)
			if tt.status == 200 {
				wantOKMessage(t, r)
			} else {
				r.wantMessage(t, tt.msg)
			}
			if d := get(); d["redirectroot"] != tt.root || d["redirect404"] != tt.notFnd {
				t.Errorf("after: %v", d)
			}
		})
	}
	e.do("PUT", path, keyB, map[string]any{"redirectroot": ""}).wantStatus(t, 404).wantMessage(t, "domain not found")
	for _, bad := range badIDs {
		e.do("PUT", "/api/domain/"+bad+"/update", key, map[string]any{"redirectroot": ""}).wantStatus(t, 404).wantMessage(t, "domain not found")
	}
	e.do("POST", path, key, map[string]any{}).wantStatus(t, 405)
}

func TestDomainDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, key := e.user("alice")
	_, keyB := e.user("bob")
	id := wantID(t, e.do("POST", "/api/domain/add", key, map[string]any{"domain": "https://go.example.com"}))
	path := fmt.Sprintf("/api/domain/%d/delete", id)
	l1 := e.sqlInt(t, `INSERT INTO links (user_id, domain_id, host, alias, long_url) VALUES ($1, $2, 'go.example.com', 'a1', 'https://example.com') RETURNING id`, alice, id)
	e.sqlExec(t, `INSERT INTO links (user_id, domain_id, host, alias, long_url) VALUES ($1, $2, 'go.example.com', 'a2', 'https://example.com')`, alice, id)

	e.do("DELETE", path, keyB, nil).wantStatus(t, 404).wantMessage(t, "domain not found")
	e.do("DELETE", path, key, nil).wantStatus(t, 409).wantMessage(t, "domain: 2 short links use it; delete or move them first")
	e.sqlExec(t, `DELETE FROM links WHERE id = $1`, l1)
	e.do("DELETE", path, key, nil).wantStatus(t, 409).wantMessage(t, "domain: 1 short links use it")
	if n := e.sqlInt(t, `SELECT count(*) FROM domains`); n != 1 {
		t.Fatal("refused delete removed the domain")
	}
	e.sqlExec(t, `DELETE FROM links`)
	wantOKMessage(t, e.do("DELETE", path, key, nil))
	if n := e.sqlInt(t, `SELECT count(*) FROM domains`); n != 0 {
		t.Errorf("%d domains left", n)
	}
	e.do("DELETE", path, key, nil).wantStatus(t, 404)
	for _, bad := range badIDs {
		e.do("DELETE", "/api/domain/"+bad+"/delete", key, nil).wantStatus(t, 404).wantMessage(t, "domain not found")
	}
	// The host is free again after the delete.
	wantID(t, e.do("POST", "/api/domain/add", keyB, map[string]any{"domain": "https://go.example.com"}))
	if !strings.Contains(string(e.do("GET", "/api/domains", keyB, nil).Raw), "go.example.com") {
		t.Error("bob's re-added domain not listed")
	}
}

package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"kurz/shared/pgstore/pgtest"
)

func (e *testEnv) newPixel(t *testing.T, key, typ, name, tag string) int64 {
	t.Helper()
	r := e.do("POST", "/api/pixel/add", key, map[string]any{"type": typ, "name": name, "tag": tag}).wantStatus(t, http.StatusOK)
	wantKeys(t, r.Body, map[string]string{"error": "number", "id": "number"})
	if len(r.Body) != 2 || r.Body["error"] != float64(0) {
		t.Fatalf("add pixel body %s", r.Raw)
	}
	return int64(r.Body["id"].(float64))
}

func TestPixelCRUD(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	id := e.newPixel(t, key, "tagmanagerpixel", "Main GTM", "GTM-ABC123")
	items := e.do("GET", "/api/pixels", key, nil).list(t, "pixels")
	if len(items) != 1 {
		t.Fatalf("%d pixels", len(items))
	}
	row := items[0].(map[string]any)
	wantKeys(t, row, map[string]string{"id": "number", "type": "string", "name": "string", "tag": "string", "date": "string"})
	if len(row) != 5 || row["id"] != float64(id) || row["type"] != "tagmanagerpixel" || row["name"] != "Main GTM" ||
		row["tag"] != "GTM-ABC123" || !specTime.MatchString(row["date"].(string)) {
		t.Errorf("row %v", row)
	}

	path := fmt.Sprintf("/api/pixel/%d", id)
	r := e.do("PUT", path+"/update", key, map[string]any{"tag": "GTM-NEW"}).wantStatus(t, http.StatusOK)
	wantKeys(t, r.Body, map[string]string{"error": "number", "message": "string"})
	row = e.do("GET", "/api/pixels", key, nil).list(t, "pixels")[0].(map[string]any)
	if row["tag"] != "GTM-NEW" || row["name"] != "Main GTM" {
		t.Errorf("after tag-only update: %v", row)
	}
	e.do("PUT", path+"/update", key, map[string]any{"tag": "GTM-3", "name": "Renamed"}).wantStatus(t, http.StatusOK)
	row = e.do("GET", "/api/pixels", key, nil).list(t, "pixels")[0].(map[string]any)
	if row["tag"] != "GTM-3" || row["name"] != "Renamed" || row["type"] != "tagmanagerpixel" {
		t.Errorf("after update: %v", row)
	}

	// Deleting a pixel removes it from the links that fire it.
	lid, _ := e.newShortLink(t, key, map[string]any{"url": "https://example.com/", "pixels": []int64{id}})
	if px := e.shortLinkDetails(t, key, lid)["pixels"].([]any); len(px) != 1 {
		t.Fatalf("link pixels %v", px)
	}
	r = e.do("DELETE", path+"/delete", key, nil).wantStatus(t, http.StatusOK)
	wantKeys(t, r.Body, map[string]string{"error": "number", "message": "string"})
	if px := e.shortLinkDetails(t, key, lid)["pixels"].([]any); len(px) != 0 {
		t.Errorf("deleted pixel still on link: %v", px)
	}
	e.do("DELETE", path+"/delete", key, nil).wantStatus(t, http.StatusNotFound).wantMessage(t, "pixel not found")
	e.do("PUT", path+"/update", key, map[string]any{"tag": "x"}).wantStatus(t, http.StatusNotFound)
	if items := e.do("GET", "/api/pixels", key, nil).list(t, "pixels"); len(items) != 0 {
		t.Errorf("list after delete: %v", items)
	}
}

func TestPixelValidation(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	ok := map[string]any{"type": "analyticspixel", "name": "n", "tag": "G-1"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range ok {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name  string
		body  any
		parts []string
	}{
		{"no type", with("type", nil), []string{"type", "shortvideo"}},
		{"bad type", with("type", "facebookpixel"), []string{"type", "must be one of"}},
		{"type padded", with("type", " analyticspixel"), []string{"type"}},
		{"no name", with("name", nil), []string{"name", "required"}},
		{"blank name", with("name", "  "), []string{"name", "required"}},
		{"long name", with("name", strings.Repeat("n", 101)), []string{"name", "100"}},
		{"name control", with("name", "a\x07"), []string{"name", "control"}},
		{"no tag", with("tag", nil), []string{"tag", "required"}},
		{"empty tag", with("tag", ""), []string{"tag", "1 to 128"}},
		{"long tag", with("tag", strings.Repeat("t", 129)), []string{"tag"}},
		{"markup tag", with("tag", "<script>alert(1)</script>"), []string{"tag", "letters, digits"}},
		{"quote tag", with("tag", `G-1" onload="x`), []string{"tag"}},
		{"tag number", with("tag", 5), []string{"tag"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.do("POST", "/api/pixel/add", key, tt.body).wantStatus(t, http.StatusBadRequest).wantMessage(t, tt.parts...)
		})
	}
	id := e.newPixel(t, key, "analyticspixel", "n", "G-1")
	path := fmt.Sprintf("/api/pixel/%d/update", id)
	e.do("PUT", path, key, map[string]any{"name": "only name"}).wantStatus(t, http.StatusBadRequest).wantMessage(t, "tag", "required")
	e.do("PUT", path, key, map[string]any{"tag": "<b>"}).wantStatus(t, http.StatusBadRequest).wantMessage(t, "tag")
	e.do("PUT", path, key, map[string]any{"tag": "G-2", "name": ""}).wantStatus(t, http.StatusBadRequest).wantMessage(t, "name")
	var n int
	var tag string
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT count(*), max(tag) FROM pixels`).Scan(&n, &tag); err != nil {
		t.Fatal(err)
	}
	if n != 1 || tag != "G-1" {
		t.Errorf("failed requests wrote: %d pixels, tag %q", n, tag)
	}
}

func TestPixelIsolationAndPaging(t *testing.T) {
	e := newEnv(t)
	_, akey := e.user("alice")
	_, bkey := e.user("bob")
	var ids []int64
	for i := range 3 {
		ids = append(ids, e.newPixel(t, akey, "retargetingpixel", fmt.Sprintf("p%d", i), fmt.Sprintf("R-%d", i)))
	}
	r := e.do("GET", "/api/pixels?limit=2&page=1", akey, nil)
	items := r.list(t, "pixels")
	d := r.data(t)
	if len(items) != 2 || d["result"] != float64(3) || d["nextpage"] != float64(2) || d["maxpage"] != float64(2) {
		t.Errorf("page 1: %s", r.Raw)
	}
	if items[0].(map[string]any)["id"] != float64(ids[2]) {
		t.Errorf("pixels must list newest first: %v", items)
	}
	r = e.do("GET", "/api/pixels?limit=2&page=2", akey, nil)
	if items := r.list(t, "pixels"); len(items) != 1 || r.data(t)["nextpage"] != float64(0) {
		t.Errorf("page 2: %s", r.Raw)
	}
	if items := e.do("GET", "/api/pixels?limit=2&page=5", akey, nil).list(t, "pixels"); len(items) != 0 {
		t.Errorf("page 5: %v", items)
	}
	e.do("GET", "/api/pixels?page=0", akey, nil).wantStatus(t, http.StatusBadRequest).wantMessage(t, "page")

	if items := e.do("GET", "/api/pixels", bkey, nil).list(t, "pixels"); len(items) != 0 {
		t.Errorf("bob sees %v", items)
	}
	p := fmt.Sprintf("/api/pixel/%d", ids[0])
	e.do("PUT", p+"/update", bkey, map[string]any{"tag": "stolen"}).wantStatus(t, http.StatusNotFound).wantMessage(t, "pixel not found")
	e.do("DELETE", p+"/delete", bkey, nil).wantStatus(t, http.StatusNotFound).wantMessage(t, "pixel not found")
	for _, bad := range []string{"0", "x", "-2", "999999"} {
		e.do("PUT", "/api/pixel/"+bad+"/update", akey, map[string]any{"tag": "a"}).wantStatus(t, http.StatusNotFound)
		e.do("DELETE", "/api/pixel/"+bad+"/delete", akey, nil).wantStatus(t, http.StatusNotFound)
	}
	var tag string
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT tag FROM pixels WHERE id = $1`, ids[0]).Scan(&tag); err != nil || tag != "R-0" {
		t.Errorf("alice's pixel: %q, %v", tag, err)
	}
	e.do("POST", "/api/pixels", akey, nil).wantStatus(t, http.StatusMethodNotAllowed)
}

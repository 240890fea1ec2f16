package api

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"kurz/shared/pgstore/pgtest"
)

func TestSplashAddAndList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.user("alice")
	_, keyB := e.user("bob")
	tests := []struct {
		name    string
		body    any
		status  int
		msg     string
		counter int64
	}{
		{"minimal", map[string]any{"name": "Wait"}, 200, "", 5},
		{"full", map[string]any{"name": "Full", "title": "Hello", "message": "Line1\nLine2", "image": "https://example.com/a.png",
			"link": "https://example.com/", "counter": 10}, 200, "", 10},
		{"counter zero", map[string]any{"name": "Zero", "counter": 0}, 200, "", 0},
		{"counter max", map[string]any{"name": "Max", "counter": 60}, 200, "", 60},
		{"no name", map[string]any{"title": "x"}, 400, "name: required", 0},
		{"long name", map[string]any{"name": strings.Repeat("n", 101)}, 400, "name: must be at most 100", 0},
		{"long title", map[string]any{"name": "x", "title": strings.Repeat("t", 201)}, 400, "title: must be at most 200", 0},
		{"title newline", map[string]any{"name": "x", "title": "a\nb"}, 400, "title: must not contain control characters", 0},
		{"long message", map[string]any{"name": "x", "message": strings.Repeat("m", 1001)}, 400, "message: must be at most 1000", 0},
		{"bad image", map[string]any{"name": "x", "image": "file:///etc/passwd"}, 400, "image: must be an absolute http or https URL", 0},
		{"bad link", map[string]any{"name": "x", "link": "javascript:x"}, 400, "link: must be an absolute http or https URL", 0},
		{"negative counter", map[string]any{"name": "x", "counter": -1}, 400, "counter: must be an integer from 0 to 60", 0},
		{"big counter", map[string]any{"name": "x", "counter": 61}, 400, "counter: must be an integer from 0 to 60", 0},
		{"fraction counter", map[string]any{"name": "x", "counter": 1.5}, 400, "counter: must be an integer", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/api/splash/add", key, tt.body).wantStatus(t, tt.status)
			if tt.status != 200 {
				r.wantMessage(t, tt.msg)
				return
			}
			wantKeys(t, r.Body, map[string]string{"error": "number", "id": "number"})
			id := wantID(t, r)
			if c := e.sqlInt(t, `SELECT counter FROM splash_pages WHERE id = $1`, id); c != tt.counter {
				t.Errorf("counter = %d, want %d", c, tt.counter)
			}
		})
	}
	if n := e.sqlInt(t, `SELECT count(*) FROM splash_pages`); n != 4 {
		t.Fatalf("%d splash pages stored, want 4", n)
	}
	r := e.do("GET", "/api/splash?limit=3&page=2", key, nil)
	items := r.list(t, "splash")
	if len(items) != 1 || r.data(t)["result"] != float64(4) || r.data(t)["nextpage"] != float64(0) || r.data(t)["maxpage"] != float64(2) {
		t.Fatalf("page 2: %s", r.Raw)
	}
	row := items[0].(map[string]any)
	wantKeys(t, row, map[string]string{"id": "number", "name": "string", "date": "string"})
	if len(row) != 3 || row["name"] != "Wait" || !specTime.MatchString(row["date"].(string)) {
		t.Errorf("oldest row = %v", row)
	}
	if items := e.do("GET", "/api/splash", keyB, nil).list(t, "splash"); len(items) != 0 {
		t.Errorf("bob sees %d splash pages", len(items))
	}
}

func TestSplashUpdateDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, key := e.user("alice")
	_, keyB := e.user("bob")
	id := wantID(t, e.do("POST", "/api/splash/add", key, map[string]any{"name": "One", "title": "T", "counter": 3}))
	upd := fmt.Sprintf("/api/splash/%d/update", id)
	del := fmt.Sprintf("/api/splash/%d/delete", id)

	wantOKMessage(t, e.do("PUT", upd, key, map[string]any{"counter": 7, "image": "https://example.com/i.jpg"}))
	e.do("PUT", upd, key, map[string]any{"title": "new", "counter": 100}).wantStatus(t, 400).wantMessage(t, "counter")
	var name, title, image string
	var counter int
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT name, title, image, counter FROM splash_pages WHERE id = $1`, id).Scan(&name, &title, &image, &counter); err != nil {
		t.Fatal(err)
	}
	if name != "One" || title != "T" || image != "https://example.com/i.jpg" || counter != 7 {
		t.Errorf("after updates: %q %q %q %d", name, title, image, counter)
	}
	e.do("PUT", upd, keyB, map[string]any{"name": "x"}).wantStatus(t, 404).wantMessage(t, "splash page not found")
	e.do("DELETE", del, keyB, nil).wantStatus(t, 404).wantMessage(t, "splash page not found")
	for _, bad := range badIDs {
		e.do("PUT", "/api/splash/"+bad+"/update", key, map[string]any{"name": "x"}).wantStatus(t, 404)
		e.do("DELETE", "/api/splash/"+bad+"/delete", key, nil).wantStatus(t, 404)
	}

	l1 := e.sqlInt(t, `INSERT INTO links (user_id, alias, long_url, type, splash_id) VALUES ($1, 'sp1', 'https://example.com', 'splash', $2) RETURNING id`, alice, id)
	l2 := e.sqlInt(t, `INSERT INTO links (user_id, alias, long_url, type) VALUES ($1, 'fr1', 'https://example.com', 'frame') RETURNING id`, alice)
	wantOKMessage(t, e.do("DELETE", del, key, nil))
	if n := e.sqlInt(t, `SELECT count(*) FROM links WHERE id = $1 AND type = 'direct' AND splash_id IS NULL`, l1); n != 1 {
		t.Error("link of the deleted splash page is not direct")
	}
	if n := e.sqlInt(t, `SELECT count(*) FROM links WHERE id = $1 AND type = 'frame'`, l2); n != 1 {
		t.Error("unrelated link changed")
	}
	e.do("DELETE", del, key, nil).wantStatus(t, 404)
}

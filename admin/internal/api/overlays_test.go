package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"kurz/shared/pgstore/pgtest"
)

func TestOverlayAddAndList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.user("alice")
	_, keyB := e.user("bob")
	long := strings.Repeat("x", 101)
	tests := []struct {
		name   string
		body   any
		status int
		msg    string
	}{
		{"minimal", map[string]any{"name": "Promo"}, 200, ""},
		{"full", map[string]any{"name": "Full", "type": "message", "message": "Hi\nthere", "button_text": "Go",
			"button_url": "https://example.com/buy", "background": "#ffffff", "color": "#00aa00", "position": "top"}, 200, ""},
		{"no name", map[string]any{"message": "x"}, 400, "name: required"},
		{"blank name", map[string]any{"name": "   "}, 400, "name: required"},
		{"long name", map[string]any{"name": long}, 400, "name: must be at most 100 characters"},
		{"control in name", map[string]any{"name": "a\nb"}, 400, "name: must not contain control characters"},
		{"bad type", map[string]any{"name": "x", "type": "contact"}, 400, "type: must be one of: message"},
		{"long message", map[string]any{"name": "x", "message": strings.Repeat("m", 1001)}, 400, "message: must be at most 1000"},
		{"long button text", map[string]any{"name": "x", "button_text": long}, 400, "button_text: must be at most 100"},
		{"bad button url", map[string]any{"name": "x", "button_url": "javascript:alert(1)"}, 400, "button_url: must be an absolute http or https URL"},
		{"bad background", map[string]any{"name": "x", "background": "red"}, 400, "background: must be a HEX colour"},
		{"bad color", map[string]any{"name": "x", "color": "#12345"}, 400, "color: must be a HEX colour"},
		{"bad position", map[string]any{"name": "x", "position": "middle"}, 400, "position: must be one of"},
		{"wrong type", map[string]any{"name": []string{"x"}}, 400, "name: must be a string"},
		{"not json", "name=x", 400, "malformed JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/api/overlay/add", key, tt.body).wantStatus(t, tt.status)
			if tt.status != 200 {
				r.wantMessage(t, tt.msg)
				return
			}
			wantKeys(t, r.Body, map[string]string{"error": "number", "id": "number"})
			wantID(t, r)
		})
	}
	if n := e.sqlInt(t, `SELECT count(*) FROM overlays`); n != 2 {
		t.Fatalf("%d overlays stored, want 2 (failed adds must write nothing)", n)
	}
	var bg, color, pos, typ string
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT background, color, position, type FROM overlays WHERE name = 'Full'`).Scan(&bg, &color, &pos, &typ); err != nil {
		t.Fatal(err)
	}
	if bg != "#FFFFFF" || color != "#00AA00" || pos != "top" || typ != "message" {
		t.Errorf("stored %q %q %q %q", bg, color, pos, typ)
	}
	if p := e.sqlInt(t, `SELECT count(*) FROM overlays WHERE name = 'Promo' AND position = 'bottom-left' AND type = 'message'`); p != 1 {
		t.Error("defaults not applied")
	}

	r := e.do("GET", "/api/overlay?limit=1", key, nil)
	items := r.list(t, "cta")
	if len(items) != 1 || r.data(t)["result"] != float64(2) || r.data(t)["nextpage"] != float64(2) || r.data(t)["maxpage"] != float64(2) {
		t.Fatalf("list: %s", r.Raw)
	}
	row := items[0].(map[string]any)
	wantKeys(t, row, map[string]string{"id": "number", "type": "string", "name": "string", "date": "string"})
	if row["name"] != "Full" || row["type"] != "message" || !specTime.MatchString(row["date"].(string)) {
		t.Errorf("row = %v", row)
	}
	if items := e.do("GET", "/api/overlay", keyB, nil).list(t, "cta"); len(items) != 0 {
		t.Errorf("bob sees %d overlays", len(items))
	}
}

func TestOverlayUpdateDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	alice, key := e.user("alice")
	_, keyB := e.user("bob")
	id := wantID(t, e.do("POST", "/api/overlay/add", key, map[string]any{"name": "One", "message": "m1", "color": "#000000"}))
	upd := fmt.Sprintf("/api/overlay/%d/update", id)
	del := fmt.Sprintf("/api/overlay/%d/delete", id)

	wantOKMessage(t, e.do("PUT", upd, key, map[string]any{"message": "m2", "position": "bottom-right"}))
	e.do("PUT", upd, key, map[string]any{"name": "Two", "color": "blue"}).wantStatus(t, 400).wantMessage(t, "color:")
	var name, msg, color, pos string
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT name, message, color, position FROM overlays WHERE id = $1`, id).Scan(&name, &msg, &color, &pos); err != nil {
		t.Fatal(err)
	}
	if name != "One" || msg != "m2" || color != "#000000" || pos != "bottom-right" {
		t.Errorf("after updates: %q %q %q %q (a rejected update must change nothing)", name, msg, color, pos)
	}
	wantOKMessage(t, e.do("PUT", upd, key, map[string]any{"color": ""}))
	if c := e.sqlInt(t, `SELECT count(*) FROM overlays WHERE id = $1 AND color = ''`, id); c != 1 {
		t.Error(`color "" did not reset the colour`)
	}

	// Isolation and bad ids.
	e.do("PUT", upd, keyB, map[string]any{"name": "x"}).wantStatus(t, 404).wantMessage(t, "overlay not found")
	e.do("DELETE", del, keyB, nil).wantStatus(t, 404).wantMessage(t, "overlay not found")
	for _, bad := range badIDs {
		e.do("PUT", "/api/overlay/"+bad+"/update", key, map[string]any{"name": "x"}).wantStatus(t, 404)
		e.do("DELETE", "/api/overlay/"+bad+"/delete", key, nil).wantStatus(t, 404)
	}

	// Links showing the overlay fall back to direct when it goes.
	l1 := e.sqlInt(t, `INSERT INTO links (user_id, alias, long_url, type, overlay_id) VALUES ($1, 'ov1', 'https://example.com', 'overlay', $2) RETURNING id`, alice, id)
	l2 := e.sqlLink(t, alice, "plain")
	wantOKMessage(t, e.do("DELETE", del, key, nil))
	if n := e.sqlInt(t, `SELECT count(*) FROM links WHERE id = $1 AND type = 'direct' AND overlay_id IS NULL`, l1); n != 1 {
		t.Error("link of the deleted overlay is not direct")
	}
	if n := e.sqlInt(t, `SELECT count(*) FROM links WHERE id = $1 AND type = 'direct'`, l2); n != 1 {
		t.Error("unrelated link changed")
	}
	e.do("DELETE", del, key, nil).wantStatus(t, 404)
	if n := e.sqlInt(t, `SELECT count(*) FROM overlays`); n != 0 {
		t.Errorf("%d overlays left", n)
	}
	e.do("GET", "/api/overlay/add", key, nil).wantStatus(t, http.StatusMethodNotAllowed)
}

package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/admin/internal/stats"
	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
	"kurz/shared/config"
	"kurz/shared/pgstore/pgtest"
)

// newStatsEnv is newEnv with a stats service on a fresh ClickHouse
// database; it also returns that database's connection.
func newStatsEnv(t *testing.T) (*testEnv, driver.Conn) {
	t.Helper()
	conn, _ := chtest.New(t)
	st, dsn := pgtest.Store(t)
	cfg := &config.Config{BaseURL: "http://sho.rt", BaseHost: "sho.rt", AnonRateLimit: 1000, Secret: "test-secret"}
	srv := New(Deps{Store: st, Config: cfg, Stats: stats.New(conn)})
	e := startEnv(t, st, dsn, cfg)
	e.srv = srv
	e.http.Config.Handler = srv.Handler()
	return e, conn
}

type hit struct {
	kind            click.Kind
	class           click.Class
	visitor         uint64
	country, ua, os string
	ref             string
	cat             click.RefCategory
	at              time.Time
}

func insertHits(t *testing.T, conn driver.Conn, target int64, hits []hit) {
	t.Helper()
	insertOwnerHits(t, conn, 1, target, hits)
}

// insertOwnerHits is insertHits for a target of owner (what orders lists
// by clicks).
func insertOwnerHits(t *testing.T, conn driver.Conn, owner, target int64, hits []hit) {
	t.Helper()
	var b click.Block
	for i, h := range hits {
		r := click.Row{ClickID: uint64(time.Now().UnixNano()) + uint64(i), UnixNano: h.at.UnixNano(), Kind: h.kind, Class: h.class,
			Visitor: h.visitor, Country: h.country, Browser: h.ua, OS: h.os, Device: "desktop", RefHost: h.ref, RefCategory: h.cat, OwnerID: uint64(owner)}
		if h.kind == click.KindQR {
			r.QRID = uint64(target)
		} else {
			r.LinkID = uint64(target)
		}
		if r.UnixNano == 0 {
			r.UnixNano = time.Now().UnixNano()
		}
		b.Add(&r)
	}
	if err := chstore.InsertBlock(context.Background(), conn, &b); err != nil {
		t.Fatal(err)
	}
}

// statsHits is the fixture of the data-block tests: 5 humans (3 visitors),
// a bot, a preview and a prefetch.
func statsHits(kind click.Kind) []hit {
	return []hit{
		{kind, click.ClassHuman, 1, "DE", "Chrome", "Windows", "facebook.com", click.RefSocialNetwork, time.Time{}},
		{kind, click.ClassHuman, 1, "DE", "Chrome", "Windows", "facebook.com", click.RefSocialNetwork, time.Time{}},
		{kind, click.ClassHuman, 2, "US", "Firefox", "Linux", "t.co", click.RefMicroblog, time.Time{}},
		{kind, click.ClassHuman, 3, "", "Safari", "iOS", "", click.RefDirect, time.Time{}},
		{kind, click.ClassHuman, 3, "FR", "Safari", "iOS", "instagram.com", click.RefPhotoSharing, time.Time{}},
		{kind, click.ClassBot, 4, "US", "Other", "Other", "", click.RefDirect, time.Time{}},
		{kind, click.ClassPreview, 5, "US", "Other", "Other", "", click.RefDirect, time.Time{}},
		{kind, click.ClassPrefetch, 1, "DE", "Chrome", "Windows", "", click.RefDirect, time.Time{}},
	}
}

// jsonOf round-trips v so expectations compare like decoded bodies.
func jsonOf(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func wantData(t *testing.T, got map[string]any, want map[string]any) {
	t.Helper()
	fresh, ok := got["freshness"].(map[string]any)
	if !ok {
		t.Fatalf("data.freshness missing: %v", got)
	}
	wantKeys(t, fresh, map[string]string{"ingestedUntil": "string", "lagMs": "number"})
	if _, err := time.Parse(time.DateTime, fresh["ingestedUntil"].(string)); err != nil {
		t.Errorf("freshness.ingestedUntil: %v", err)
	}
	got = maps(got)
	delete(got, "freshness")
	if w := jsonOf(t, want); !reflect.DeepEqual(any(got), w) {
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(w)
		t.Fatalf("data =\n%s\nwant\n%s", gb, wb)
	}
}

func maps(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func TestLinkStatsData(t *testing.T) {
	e, conn := newStatsEnv(t)
	_, key := e.user("alice")
	_, keyB := e.user("bob")
	id := e.do("POST", "/api/url/add", key, map[string]any{"url": "https://example.com/a"}).wantStatus(t, http.StatusOK).Body["id"].(float64)
	empty := e.do("POST", "/api/url/add", key, map[string]any{"url": "https://example.com/b"}).wantStatus(t, http.StatusOK).Body["id"].(float64)
	insertHits(t, conn, int64(id), statsHits(click.KindLink))

	r := e.do("GET", fmt.Sprintf("/api/url/%d", int64(id)), key, nil).wantStatus(t, http.StatusOK)
	wantData(t, r.data(t), map[string]any{
		"clicks": 5, "uniqueClicks": 3,
		"topCountries":   map[string]int{"germany": 2, "united states": 1, "france": 1, "unknown": 1},
		"topReferrers":   map[string]int{"facebook.com": 2, "t.co": 1, "direct": 1, "instagram.com": 1},
		"topBrowsers":    map[string]int{"Chrome": 2, "Safari": 2, "Firefox": 1},
		"topOs":          map[string]int{"Windows": 2, "iOS": 2, "Linux": 1},
		"socialCount":    map[string]int{"socialnetwork": 2, "microblog": 1, "searchengine": 0},
		"botClicks":      1,
		"previewClicks":  1,
		"prefetchClicks": 1,
		"statsAvailable": true,
	})

	r = e.do("GET", fmt.Sprintf("/api/url/%d", int64(empty)), key, nil).wantStatus(t, http.StatusOK)
	wantData(t, r.data(t), map[string]any{
		"clicks": 0, "uniqueClicks": 0, "topCountries": 0, "topReferrers": 0, "topBrowsers": 0, "topOs": 0,
		"socialCount": map[string]int{"socialnetwork": 0, "microblog": 0, "searchengine": 0},
		"botClicks":   0, "previewClicks": 0, "prefetchClicks": 0, "statsAvailable": true,
	})
	e.do("GET", fmt.Sprintf("/api/url/%d", int64(id)), keyB, nil).wantStatus(t, http.StatusNotFound)
}

func TestQRStatsData(t *testing.T) {
	e, conn := newStatsEnv(t)
	_, key := e.user("alice")
	r := e.do("POST", "/api/qr/add", key, map[string]any{"type": "text", "data": "hello"}).wantStatus(t, http.StatusOK)
	id := int64(r.Body["id"].(float64))
	r = e.do("POST", "/api/qr/add", key, map[string]any{"type": "text", "data": "empty"}).wantStatus(t, http.StatusOK)
	empty := int64(r.Body["id"].(float64))
	insertHits(t, conn, id, statsHits(click.KindQR))
	insertHits(t, conn, id, []hit{{kind: click.KindLink, class: click.ClassHuman, visitor: 9}}) // the link with the same id: not a scan

	r = e.do("GET", fmt.Sprintf("/api/qr/%d", id), key, nil).wantStatus(t, http.StatusOK)
	wantData(t, r.data(t), map[string]any{
		"clicks": 5, "uniqueClicks": 3,
		"topCountries":   map[string]string{"germany": "2", "united states": "1", "france": "1", "unknown": "1"},
		"topReferrers":   map[string]string{"facebook.com": "2", "t.co": "1", "direct": "1", "instagram.com": "1"},
		"topBrowsers":    map[string]string{"Chrome": "2", "Safari": "2", "Firefox": "1"},
		"topOs":          map[string]string{"Windows": "2", "iOS": "2", "Linux": "1"},
		"socialCount":    map[string]int{"socialnetwork": 2, "microblog": 1, "photosharing": 1},
		"botClicks":      1,
		"previewClicks":  1,
		"prefetchClicks": 1,
		"statsAvailable": true,
	})
	r = e.do("GET", fmt.Sprintf("/api/qr/%d", empty), key, nil).wantStatus(t, http.StatusOK)
	wantData(t, r.data(t), map[string]any{
		"clicks": 0, "uniqueClicks": 0,
		"topCountries": map[string]string{}, "topReferrers": map[string]string{}, "topBrowsers": map[string]string{}, "topOs": map[string]string{},
		"socialCount": map[string]int{"socialnetwork": 0, "microblog": 0, "photosharing": 0},
		"botClicks":   0, "previewClicks": 0, "prefetchClicks": 0, "statsAvailable": true,
	})
	// scans in details and in the list are the same all-time human scans.
	details := e.do("GET", fmt.Sprintf("/api/qr/%d", id), key, nil).wantStatus(t, http.StatusOK).Body["details"].(map[string]any)
	if details["scans"] != float64(5) {
		t.Errorf("details.scans %v, want 5", details["scans"])
	}
	want := map[float64]float64{float64(id): 5, float64(empty): 0}
	for _, it := range e.do("GET", "/api/qr", key, nil).list(t, "qrs") {
		row := it.(map[string]any)
		if row["scans"] != want[row["id"].(float64)] {
			t.Errorf("list row %v, want scans %v", row, want[row["id"].(float64)])
		}
	}
}

func TestLinkStatsRange(t *testing.T) {
	e, conn := newStatsEnv(t)
	_, key := e.user("alice")
	_, keyB := e.user("bob")
	id := int64(e.do("POST", "/api/url/add", key, map[string]any{"url": "https://example.com/a"}).wantStatus(t, http.StatusOK).Body["id"].(float64))
	d1 := time.Date(2026, 3, 1, 9, 15, 0, 0, time.UTC)
	d3 := time.Date(2026, 3, 3, 23, 59, 59, 0, time.UTC)
	insertHits(t, conn, id, []hit{
		{click.KindLink, click.ClassHuman, 1, "DE", "Chrome", "Windows", "", click.RefDirect, d1},
		{click.KindLink, click.ClassHuman, 1, "DE", "Chrome", "Windows", "", click.RefDirect, d1.Add(time.Minute)},
		{click.KindLink, click.ClassHuman, 2, "US", "Firefox", "Linux", "t.co", click.RefMicroblog, d3},
		{click.KindLink, click.ClassBot, 3, "US", "Other", "Other", "", click.RefDirect, d3},
		{click.KindLink, click.ClassHuman, 1, "DE", "Chrome", "Windows", "", click.RefDirect, d3.Add(time.Second)}, // March 4: outside
	})
	path := fmt.Sprintf("/api/url/%d/stats", id)
	r := e.do("GET", path+"?from=2026-03-01&to=2026-03-03", key, nil).wantStatus(t, http.StatusOK)
	got := r.data(t)
	want := map[string]any{
		"interval": "day", "from": "2026-03-01", "to": "2026-03-03", "clicks": 3, "uniqueClicks": 2,
		"series": []map[string]any{
			{"date": "2026-03-01", "clicks": 2, "uniqueClicks": 1},
			{"date": "2026-03-02", "clicks": 0, "uniqueClicks": 0},
			{"date": "2026-03-03", "clicks": 1, "uniqueClicks": 1},
		},
		"topCountries": map[string]int{"germany": 2, "united states": 1},
		"topReferrers": map[string]int{"direct": 2, "t.co": 1},
		"topBrowsers":  map[string]int{"Chrome": 2, "Firefox": 1},
		"topOs":        map[string]int{"Windows": 2, "Linux": 1},
		"socialCount":  map[string]int{"socialnetwork": 0, "microblog": 1, "searchengine": 0},
	}
	if w := jsonOf(t, want); !reflect.DeepEqual(any(got), w) {
		t.Fatalf("data = %s", r.Raw)
	}

	r = e.do("GET", path+"?from=2026-03-01&to=2026-03-01&interval=hour", key, nil).wantStatus(t, http.StatusOK)
	series := r.data(t)["series"].([]any)
	if len(series) != 24 {
		t.Fatalf("hour series has %d buckets, want 24", len(series))
	}
	if b := series[9].(map[string]any); b["date"] != "2026-03-01 09:00:00" || b["clicks"] != float64(2) || b["uniqueClicks"] != float64(1) {
		t.Fatalf("bucket 9 = %v", b)
	}
	if b := series[10].(map[string]any); b["date"] != "2026-03-01 10:00:00" || b["clicks"] != float64(0) {
		t.Fatalf("bucket 10 = %v", b)
	}

	// Default range: the last 30 days, today included.
	r = e.do("GET", path, key, nil).wantStatus(t, http.StatusOK)
	if d := r.data(t); len(d["series"].([]any)) != 30 || d["to"] != time.Now().UTC().Format(time.DateOnly) || d["topCountries"] != float64(0) {
		t.Fatalf("default range: %s", r.Raw)
	}

	for _, tt := range []struct{ query, field string }{
		{"?from=2026-3-01", "from"},
		{"?from=2026-03-01&to=yesterday", "to"},
		{"?from=2026-03-05&to=2026-03-01", "from"},
		{"?from=2025-01-01&to=2026-01-02", "to"},
		{"?from=2026-01-01&to=2026-02-01&interval=hour", "to"},
		{"?interval=week", "interval"},
	} {
		e.do("GET", path+tt.query, key, nil).wantStatus(t, http.StatusBadRequest).wantMessage(t, tt.field)
	}
	// Limits are inclusive: 366 days, 31 days of hours.
	e.do("GET", path+"?from=2025-01-01&to=2026-01-01", key, nil).wantStatus(t, http.StatusOK)
	e.do("GET", path+"?from=2026-01-01&to=2026-01-31&interval=hour", key, nil).wantStatus(t, http.StatusOK)

	e.do("GET", path, keyB, nil).wantStatus(t, http.StatusNotFound)
	e.do("GET", "/api/url/abc/stats", key, nil).wantStatus(t, http.StatusNotFound)
	e.do("GET", "/api/url/999999/stats", key, nil).wantStatus(t, http.StatusNotFound)
	e.do("POST", path, key, nil).wantStatus(t, http.StatusMethodNotAllowed)
}

// deadStats points e's stats service at a closed ClickHouse connection:
// every read fails as when the server is unreachable.
func deadStats(t *testing.T, e *testEnv) {
	t.Helper()
	dead, err := chstore.Open(context.Background(), os.Getenv(chtest.EnvURL))
	if err != nil {
		t.Fatal(err)
	}
	dead.Close()
	e.srv.stats = stats.New(dead)
}

// TestStatsUnavailable: while ClickHouse cannot be read, the responses that
// carry records as well as numbers still answer 200 with the records; every
// number is null and statsAvailable is false, never a made-up 0. Lists
// asked for order=click fall back to newest first. The stats-only range
// endpoint, which has nothing else to show, is a 503.
func TestStatsUnavailable(t *testing.T) {
	e, conn := newStatsEnv(t)
	alice, key := e.user("alice")
	var ids []int64
	for i := range 2 {
		ids = append(ids, idOf(t, e.addLink(t, key, map[string]any{"url": fmt.Sprintf("https://example.com/u%d", i)})))
	}
	// The older link has clicks, so order=click would put it first.
	insertOwnerHits(t, conn, alice, ids[0], statsHits(click.KindLink))
	qr := int64(e.do("POST", "/api/qr/add", key, map[string]any{"type": "text", "data": "hello"}).wantStatus(t, http.StatusOK).Body["id"].(float64))
	up := e.do("GET", "/api/urls?order=click", key, nil).wantStatus(t, http.StatusOK).data(t)
	if up["statsAvailable"] != true || up["urls"].([]any)[0].(map[string]any)["clicks"] != float64(5) {
		t.Fatalf("with ClickHouse up: %v", up)
	}

	deadStats(t, e)
	for _, path := range []string{fmt.Sprintf("/api/url/%d", ids[0]), fmt.Sprintf("/api/qr/%d", qr)} {
		r := e.do("GET", path, key, nil).wantStatus(t, http.StatusOK)
		if _, ok := r.Body["details"].(map[string]any)["id"]; !ok {
			t.Errorf("%s: no record: %v", path, r.Body)
		}
		data := r.data(t)
		if data["statsAvailable"] != false {
			t.Errorf("%s: statsAvailable %v", path, data["statsAvailable"])
		}
		for _, k := range []string{"clicks", "uniqueClicks", "topCountries", "topReferrers", "topBrowsers", "topOs", "socialCount", "botClicks", "freshness"} {
			if v, ok := data[k]; !ok || v != nil {
				t.Errorf("%s: data.%s = %v (present %v), want null", path, k, v, ok)
			}
		}
	}
	if scans, ok := e.do("GET", fmt.Sprintf("/api/qr/%d", qr), key, nil).Body["details"].(map[string]any)["scans"]; !ok || scans != nil {
		t.Errorf("details.scans %v, want null", scans)
	}
	for _, q := range []struct{ path, key string }{
		{"/api/urls", "urls"}, {"/api/urls?order=click", "urls"}, {"/api/urls?with=uniqueClicks", "urls"}, {"/api/qr", "qrs"},
	} {
		data := e.do("GET", q.path, key, nil).wantStatus(t, http.StatusOK).data(t)
		items := data[q.key].([]any)
		if data["statsAvailable"] != false || len(items) == 0 {
			t.Errorf("%s: %v", q.path, data)
			continue
		}
		for _, it := range items {
			row := it.(map[string]any)
			for _, k := range []string{"clicks", "uniqueClicks", "scans"} {
				if v, ok := row[k]; ok && v != nil {
					t.Errorf("%s: row %v: %s = %v, want null", q.path, row["id"], k, v)
				}
			}
		}
		if q.key == "urls" && int64(items[0].(map[string]any)["id"].(float64)) != ids[1] {
			t.Errorf("%s: first row %v, want the newest link %d", q.path, items[0], ids[1])
		}
	}
	e.do("GET", fmt.Sprintf("/api/url/%d/stats", ids[0]), key, nil).wantStatus(t, http.StatusServiceUnavailable)
}

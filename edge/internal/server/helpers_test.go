package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"kurz/edge/internal/catalog"
	"kurz/shared/click"
	"kurz/shared/clientip"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
	"kurz/shared/secret"
	"kurz/shared/visitorpage"
)

const testBase = "http://kurz.test"

// recorder is the click hand-off of the tests: it keeps copies of the hits
// pushed (the pipeline's contract is the same: copy, never keep h).
type recorder struct {
	mu   sync.Mutex
	hits []click.Hit
}

func (r *recorder) push(h *click.Hit) bool {
	r.mu.Lock()
	r.hits = append(r.hits, *h)
	r.mu.Unlock()
	return true
}

func (r *recorder) all() []click.Hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]click.Hit(nil), r.hits...)
}

func (r *recorder) last(t *testing.T) click.Hit {
	t.Helper()
	h := r.all()
	if len(h) == 0 {
		t.Fatal("no click was pushed")
	}
	return h[len(h)-1]
}

type env struct {
	t     testing.TB
	store *pgstore.Store
	dsn   string
	srv   *Server
	cat   *catalog.Catalog
	rec   *recorder
	user  int64
}

type envOption func(*Config)

func newEnv(t testing.TB, opts ...envOption) *env {
	t.Helper()
	store, dsn := pgtest.Store(t)
	return newEnvOn(t, store, dsn, opts...)
}

func newEnvOn(t testing.TB, store *pgstore.Store, dsn string, opts ...envOption) *env {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	cat, err := catalog.New(store, catalog.Config{Log: log, BaseHost: "kurz.test", MaxBytes: 32 << 20, LoadTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cat.Close)
	pg, err := visitorpage.New()
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	cfg := Config{
		Log: log, Catalog: cat, Pages: pg,
		BaseURL: testBase, Resolver: clientip.New(nil), Push: rec.push, Secret: "test-secret",
		// The argon2 budget follows this machine's speed (under -race a
		// check takes ~0.5 s); only its own tests (pwlimit_test.go) set one.
		PasswordChecksPerSecond: 1000,
	}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	e := &env{t: t, store: store, dsn: dsn, srv: srv, cat: cat, rec: rec}
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), `SELECT id FROM users WHERE username = 'alice'`).Scan(&e.user); err != nil {
		e.user = e.createUser("alice")
	}
	return e
}

func (e *env) createUser(name string) int64 {
	e.t.Helper()
	u, err := e.store.CreateUser(context.Background(), pgstore.NewUser{
		Email: name + "@example.com", Username: name, Plan: "free", APIKeyHash: []byte("key-" + name),
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return u.ID
}

func (e *env) exec(sql string, args ...any) {
	e.t.Helper()
	if _, err := pgtest.Pool(e.store).Exec(context.Background(), sql, args...); err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
}

func (e *env) id(sql string, args ...any) int64 {
	e.t.Helper()
	var id int64
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), sql, args...).Scan(&id); err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
	return id
}

// link describes a row of links; zero fields take the column default.
type linkRow struct {
	Host, Alias, URL, Type string
	Password               string
	Expires                *time.Time
	MetaTitle, MetaDesc    string
	MetaImage              string
	IOS, Android           string
	Geo, Device, Lang      [][2]string // key, url
	Params                 [][2]string
	SplashID, OverlayID    *int64
	CampaignID             *int64
	Private                bool // status private; default public
}

func targets(key string, rules [][2]string) string {
	out := make([]map[string]string, 0, len(rules))
	for _, r := range rules {
		out = append(out, map[string]string{key: r[0], "link": r[1]})
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func (e *env) addLink(l linkRow) int64 {
	e.t.Helper()
	if l.Type == "" {
		l.Type = "direct"
	}
	hash := ""
	if l.Password != "" {
		var err error
		if hash, err = secret.HashPassword(l.Password); err != nil {
			e.t.Fatal(err)
		}
	}
	params := make([]map[string]string, 0, len(l.Params))
	for _, p := range l.Params {
		params = append(params, map[string]string{"name": p[0], "value": p[1]})
	}
	pj, _ := json.Marshal(params)
	var domainID *int64
	if l.Host != "" {
		id := e.id(`SELECT id FROM domains WHERE host = $1`, l.Host)
		domainID = &id
	}
	return e.id(`INSERT INTO links (user_id, domain_id, host, alias, long_url, type, password_hash, expires_at,
		meta_title, meta_description, meta_image, deeplink_ios, deeplink_android,
		geo_targets, device_targets, lang_targets, parameters, splash_id, overlay_id, campaign_id, status)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21) RETURNING id`,
		e.user, domainID, l.Host, l.Alias, l.URL, l.Type, hash, l.Expires,
		l.MetaTitle, l.MetaDesc, l.MetaImage, l.IOS, l.Android,
		targets("location", l.Geo), targets("device", l.Device), targets("language", l.Lang), string(pj),
		l.SplashID, l.OverlayID, l.CampaignID, map[bool]string{false: "public", true: "private"}[l.Private])
}

func (e *env) addDomain(host, root, notFound string) int64 {
	e.t.Helper()
	id := e.id(`INSERT INTO domains (user_id, host, domain, redirect_root, redirect_404) VALUES ($1,$2,$3,$4,$5) RETURNING id`,
		e.user, host, "https://"+host, root, notFound)
	if err := e.cat.ReloadDomains(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	return id
}

// req describes a request.
type req struct {
	method  string
	host    string
	path    string
	ua      string
	peer    string // client address; default 198.51.100.7
	headers map[string]string
	cookie  string
	form    string
}

var browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"

// do runs one request through the full handler and returns the response.
func (e *env) do(r req) *fasthttp.Response {
	e.t.Helper()
	var fr fasthttp.Request
	if r.method == "" {
		r.method = "GET"
	}
	if r.host == "" {
		r.host = "kurz.test"
	}
	if r.ua == "" {
		r.ua = browserUA
	}
	if r.peer == "" {
		r.peer = "198.51.100.7"
	}
	fr.Header.SetMethod(r.method)
	fr.SetRequestURI(r.path)
	fr.Header.SetHost(r.host)
	fr.Header.SetUserAgent(r.ua)
	for k, v := range r.headers {
		fr.Header.Set(k, v)
	}
	if r.cookie != "" {
		fr.Header.Set("Cookie", r.cookie)
	}
	if r.form != "" {
		fr.Header.SetContentType("application/x-www-form-urlencoded")
		fr.SetBodyString(r.form)
	}
	var ctx fasthttp.RequestCtx
	ip := netip.MustParseAddr(r.peer)
	ctx.Init(&fr, &net.TCPAddr{IP: ip.AsSlice(), Port: 40000}, nil)
	e.srv.Handler(&ctx)
	var resp fasthttp.Response
	ctx.Response.CopyTo(&resp)
	return &resp
}

func location(r *fasthttp.Response) string { return string(r.Header.Peek("Location")) }

func expect(t *testing.T, r *fasthttp.Response, status int, loc string) {
	t.Helper()
	if r.StatusCode() != status {
		t.Fatalf("status = %d, want %d; Location %q; body %.300s", r.StatusCode(), status, location(r), r.Body())
	}
	if loc != "" && location(r) != loc {
		t.Fatalf("Location = %q, want %q", location(r), loc)
	}
}

func expectBody(t *testing.T, r *fasthttp.Response, parts ...string) {
	t.Helper()
	body := string(r.Body())
	for _, p := range parts {
		if !strings.Contains(body, p) {
			t.Fatalf("body lacks %q:\n%.2000s", p, body)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func fmtID(id int64) string { return fmt.Sprint(id) }

func hashPassword(t testing.TB, pw string) string {
	t.Helper()
	h, err := secret.HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func t0() context.Context { return context.Background() }

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kurz/shared/config"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
	"kurz/shared/secret"
)

// testEnv is one admin API server on its own fresh database.
type testEnv struct {
	t     *testing.T
	store *pgstore.Store
	dsn   string
	cfg   *config.Config
	srv   *Server
	http  *httptest.Server
}

// newEnv starts a server on a fresh database. Options may adjust the config
// before the server is built.
func newEnv(t *testing.T, opts ...func(*config.Config)) *testEnv {
	t.Helper()
	st, dsn := pgtest.Store(t)
	cfg := &config.Config{
		BaseURL:       "http://sho.rt",
		BaseHost:      "sho.rt",
		AnonRateLimit: 1000,
		Secret:        "test-secret",
	}
	for _, o := range opts {
		o(cfg)
	}
	return startEnv(t, st, dsn, cfg)
}

func startEnv(t *testing.T, st *pgstore.Store, dsn string, cfg *config.Config) *testEnv {
	t.Helper()
	srv := New(Deps{Store: st, Config: cfg, Ready: []Check{{Name: "postgres", Fn: st.Ping}}})
	srv.frameFetch = noFrameFetch // tests never reach out to real sites
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &testEnv{t: t, store: st, dsn: dsn, cfg: cfg, srv: srv, http: hs}
}

type userOpt struct {
	plan      string
	rateLimit *int
	expires   *time.Time
	operator  bool
}

// user creates an account and returns its id and API key. Test users are
// unlimited unless opts say otherwise, so tests of other things never hit
// the rate limit.
func (e *testEnv) user(name string, opts ...func(*userOpt)) (int64, string) {
	e.t.Helper()
	unlimited := 0
	o := userOpt{plan: "free", rateLimit: &unlimited}
	for _, f := range opts {
		f(&o)
	}
	key, hash := secret.NewAPIKey()
	u, err := e.store.CreateUser(context.Background(), pgstore.NewUser{
		Email: name + "@example.com", Username: name, Plan: o.plan, RateLimit: o.rateLimit,
		ExpiresAt: o.expires, IsOperator: o.operator, APIKeyHash: hash,
	})
	if err != nil {
		e.t.Fatalf("create user %s: %v", name, err)
	}
	return u.ID, key
}

// response is a decoded JSON answer.
type response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// do sends a request; body may be nil, a string (sent raw) or a value
// (JSON-encoded). key "" sends no Authorization header.
func (e *testEnv) do(method, path, key string, body any) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, e.http.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return e.send(req)
}

func (e *testEnv) send(req *http.Request) response {
	e.t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if ct := res.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			e.t.Fatalf("%s %s: body is not a JSON object: %v: %s", req.Method, req.URL.Path, err, raw)
		}
	}
	return r
}

// wantStatus fails unless the response has the status; for errors it also
// checks the spec's error body.
func (r response) wantStatus(t *testing.T, status int) response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body %s", r.Status, status, r.Raw)
	}
	if status >= 400 {
		if r.Body["error"] != float64(1) {
			t.Fatalf("error body must have \"error\":1, got %s", r.Raw)
		}
		if msg, _ := r.Body["message"].(string); msg == "" {
			t.Fatalf("error body must have a message, got %s", r.Raw)
		}
	}
	return r
}

// wantMessage fails unless the error message contains all parts.
func (r response) wantMessage(t *testing.T, parts ...string) {
	t.Helper()
	msg, _ := r.Body["message"].(string)
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("message %q does not contain %q", msg, p)
		}
	}
}

// data returns body["data"] as an object.
func (r response) data(t *testing.T) map[string]any {
	t.Helper()
	d, ok := r.Body["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object in %s", r.Raw)
	}
	return d
}

// list checks the paged envelope and returns the collection under key.
func (r response) list(t *testing.T, key string) []any {
	t.Helper()
	r.wantStatus(t, http.StatusOK)
	if r.Body["error"] != float64(0) {
		t.Fatalf(`list envelope must carry "error":0 (an integer, as strict clients need), got %#v`, r.Body["error"])
	}
	d := r.data(t)
	for _, k := range []string{"result", "perpage", "currentpage", "nextpage", "maxpage"} {
		if _, ok := d[k].(float64); !ok {
			t.Fatalf("data.%s must be an integer, got %#v", k, d[k])
		}
	}
	items, ok := d[key].([]any)
	if !ok {
		t.Fatalf("data.%s must be an array, got %#v in %s", key, d[key], r.Raw)
	}
	return items
}

// wantKeys fails unless obj has exactly the JSON types given
// ("string", "number", "bool", "object", "array", "null").
func wantKeys(t *testing.T, obj map[string]any, types map[string]string) {
	t.Helper()
	for k, typ := range types {
		v, ok := obj[k]
		if !ok {
			t.Errorf("missing key %q in %v", k, obj)
			continue
		}
		got := "null"
		switch v.(type) {
		case string:
			got = "string"
		case float64:
			got = "number"
		case bool:
			got = "bool"
		case map[string]any:
			got = "object"
		case []any:
			got = "array"
		}
		if got != typ {
			t.Errorf("key %q: JSON type %s, want %s (value %#v)", k, got, typ, v)
		}
	}
}

// awayFromWindowEdge waits out the last seconds of a minute so a test's
// requests all fall into one rate-limit window.
func awayFromWindowEdge() {
	if left := time.Until(time.Now().Truncate(time.Minute).Add(time.Minute)); left < 3*time.Second {
		time.Sleep(left + 100*time.Millisecond)
	}
}

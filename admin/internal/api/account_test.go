package api

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"kurz/shared/config"
)

var specTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$`)

func TestGetAccount(t *testing.T) {
	e := newEnv(t)
	exp := time.Date(2099, 1, 2, 3, 4, 5, 0, time.UTC)
	id, key := e.user("alice", func(o *userOpt) { o.plan = "pro"; o.expires = &exp })
	_, key2 := e.user("bob")

	r := e.do("GET", "/api/account", key, nil).wantStatus(t, http.StatusOK)
	if r.Body["error"] != float64(0) {
		t.Fatalf(`single-object success must carry "error":0, got %#v`, r.Body["error"])
	}
	d := r.data(t)
	wantKeys(t, d, map[string]string{"id": "number", "email": "string", "username": "string", "avatar": "string",
		"status": "string", "expires": "string", "registered": "string"})
	if d["id"] != float64(id) || d["username"] != "alice" || d["email"] != "alice@example.com" || d["status"] != "pro" {
		t.Errorf("account = %v", d)
	}
	if d["expires"] != "2099-01-02 03:04:05" {
		t.Errorf("expires = %v", d["expires"])
	}
	if !specTime.MatchString(d["registered"].(string)) {
		t.Errorf("registered = %v", d["registered"])
	}
	// Never-expiring account: expires is "".
	d2 := e.do("GET", "/api/account", key2, nil).wantStatus(t, http.StatusOK).data(t)
	if d2["expires"] != "" || d2["username"] != "bob" {
		t.Errorf("bob = %v", d2)
	}
}

func TestAuthErrors(t *testing.T) {
	e := newEnv(t)
	past := time.Now().Add(-time.Hour)
	_, expired := e.user("old", func(o *userOpt) { o.expires = &past })
	_, valid := e.user("valid")
	tests := []struct {
		name   string
		header string
		status int
		msg    string
	}{
		{"missing", "", 401, "missing API key"},
		{"unknown", "Bearer kurz_doesnotexist", 401, "invalid API key"},
		{"expired", "Bearer " + expired, 401, "expired"},
		{"wrong scheme", "Basic dXNlcjpwYXNz", 401, "malformed Authorization"},
		{"empty bearer", "Bearer ", 401, "malformed Authorization"},
		{"lower-case scheme ok", "bearer " + valid, 200, ""},
		// Dialects of existing clients (docs/api.md "Compatibility").
		{"token scheme", "Token " + valid, 200, ""},
		{"token scheme any case", "TOKEN " + valid, 200, ""},
		{"bare key", valid, 200, ""},
		{"bare key with spaces around", "  " + valid + " ", 200, ""},
		{"token without key", "Token", 401, "malformed Authorization"},
		{"extra words", "Bearer " + valid + " extra", 401, "malformed Authorization"},
		{"bare unknown key", "kurz_doesnotexist", 401, "invalid API key"},
		{"token unknown key", "Token kurz_doesnotexist", 401, "invalid API key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", e.http.URL+"/api/account", nil)
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			r := e.send(req).wantStatus(t, tt.status)
			if tt.msg != "" {
				r.wantMessage(t, tt.msg)
			}
			for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
				if r.Header.Get(h) == "" {
					t.Errorf("missing header %s", h)
				}
			}
		})
	}
}

func TestUpdateAccount(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	e.user("bob")
	tests := []struct {
		name   string
		body   any
		status int
		msg    string
	}{
		{"nothing", map[string]any{}, 400, "email"},
		{"bad email", map[string]any{"email": "not-an-email"}, 400, "email"},
		{"display name email", map[string]any{"email": "Bob <b@example.com>"}, 400, "email"},
		{"short password", map[string]any{"password": "short"}, 400, "password: must be at least 8"},
		{"empty password", map[string]any{"password": ""}, 400, "password: required"},
		{"long password", map[string]any{"password": strings.Repeat("p", 1025)}, 400, "password: must be at most 1024 bytes"},
		{"password is current email", map[string]any{"password": "ALICE@example.com"}, 400, "password: must not be the username or the email"},
		{"password is new email", map[string]any{"email": "alice9@example.com", "password": "alice9@example.com"}, 400, "password: must not be"},
		{"wrong type", map[string]any{"email": 42}, 400, "email: must be a string"},
		{"malformed", `{"email":`, 400, "malformed JSON"},
		{"taken email", map[string]any{"email": "bob@example.com"}, 409, "email"},
		{"taken email other case", map[string]any{"email": "BOB@example.com"}, 409, "email"},
		{"email ok", map[string]any{"email": "alice2@example.com"}, 200, ""},
		{"password ok", map[string]any{"password": "long enough pw"}, 200, ""},
		{"both ok", map[string]any{"email": "alice3@example.com", "password": "another long pw"}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("PUT", "/api/account/update", key, tt.body).wantStatus(t, tt.status)
			if tt.msg != "" {
				r.wantMessage(t, tt.msg)
			}
			if tt.status == 200 && (r.Body["error"] != float64(0) || r.Body["message"] == "") {
				t.Errorf("success body = %s", r.Raw)
			}
		})
	}
	d := e.do("GET", "/api/account", key, nil).data(t)
	if d["email"] != "alice3@example.com" {
		t.Errorf("email after updates = %v", d["email"])
	}
}

func TestUpdateAccountContentType(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	// A body that is neither a JSON object nor a form (whatever its label:
	// JSON is read whatever the Content-Type, see compat_test.go).
	req, _ := http.NewRequest("PUT", e.http.URL+"/api/account/update", strings.NewReader("new password please"))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "text/plain")
	e.send(req).wantStatus(t, http.StatusUnsupportedMediaType)
}

func TestBodyTooLarge(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	big := `{"email":"` + strings.Repeat("a", MaxBody) + `"}`
	e.do("PUT", "/api/account/update", key, big).wantStatus(t, http.StatusRequestEntityTooLarge)
}

func TestRotateKey(t *testing.T) {
	e := newEnv(t)
	_, old := e.user("alice")
	r := e.do("POST", "/api/account/key/rotate", old, nil).wantStatus(t, http.StatusOK)
	newKey, _ := r.Body["api_key"].(string)
	if newKey == "" || newKey == old {
		t.Fatalf("rotate returned %s", r.Raw)
	}
	e.do("GET", "/api/account", old, nil).wantStatus(t, http.StatusUnauthorized).wantMessage(t, "invalid API key")
	e.do("GET", "/api/account", newKey, nil).wantStatus(t, http.StatusOK)
}

func TestUnknownRouteAndMethod(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	e.do("GET", "/api/nope", key, nil).wantStatus(t, http.StatusNotFound)
	e.do("GET", "/nope", "", nil).wantStatus(t, http.StatusNotFound)
	r := e.do("DELETE", "/api/account", key, nil).wantStatus(t, http.StatusMethodNotAllowed)
	if r.Header.Get("Allow") != "GET" {
		t.Errorf("Allow = %q", r.Header.Get("Allow"))
	}
}

func TestHealth(t *testing.T) {
	e := newEnv(t)
	e.do("GET", "/healthz", "", nil).wantStatus(t, http.StatusOK)
	r := e.do("GET", "/readyz", "", nil).wantStatus(t, http.StatusOK)
	if r.Body["status"] != "ready" {
		t.Errorf("readyz = %s", r.Raw)
	}
}

func TestPaging(t *testing.T) {
	tests := []struct {
		query     string
		wantErr   bool
		limit, pg int
	}{
		{"", false, DefaultLimit, 1},
		{"limit=5&page=3", false, 5, 3},
		{"limit=0", true, 0, 0},
		{"limit=101", true, 0, 0},
		{"limit=x", true, 0, 0},
		{"page=0", true, 0, 0},
		{"page=-1", true, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			req, _ := http.NewRequest("GET", "/x?"+tt.query, nil)
			p, err := ParsePage(req)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			if !tt.wantErr && (p.Limit != tt.limit || p.Page != tt.pg) {
				t.Errorf("got %+v", p)
			}
		})
	}
}

func TestRateLimit(t *testing.T) {
	e := newEnv(t)
	awayFromWindowEdge()
	limit := 3
	_, key := e.user("alice", func(o *userOpt) { o.rateLimit = &limit })
	for i := 1; i <= limit; i++ {
		r := e.do("GET", "/api/account", key, nil).wantStatus(t, http.StatusOK)
		if r.Header.Get("X-RateLimit-Limit") != "3" || r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(limit-i) {
			t.Errorf("request %d: limit %q remaining %q", i, r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"))
		}
		reset, err := strconv.ParseInt(r.Header.Get("X-RateLimit-Reset"), 10, 64)
		if err != nil || reset < time.Now().Unix() || reset > time.Now().Add(61*time.Second).Unix() {
			t.Errorf("X-RateLimit-Reset = %q", r.Header.Get("X-RateLimit-Reset"))
		}
	}
	r := e.do("GET", "/api/account", key, nil).wantStatus(t, http.StatusTooManyRequests)
	r.wantMessage(t, "rate limit")
	if r.Header.Get("Retry-After") == "" || r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("429 headers: %v", r.Header)
	}
}

func TestRateLimitPlanDefault(t *testing.T) {
	e := newEnv(t)
	awayFromWindowEdge()
	_, key := e.user("alice", func(o *userOpt) { o.rateLimit = nil })
	r := e.do("GET", "/api/account", key, nil).wantStatus(t, http.StatusOK)
	if r.Header.Get("X-RateLimit-Limit") != "30" || r.Header.Get("X-RateLimit-Remaining") != "29" {
		t.Errorf("default plan headers: %v", r.Header)
	}
}

// Two admin servers on one database enforce one shared count.
func TestRateLimitSharedAcrossProcesses(t *testing.T) {
	a := newEnv(t)
	awayFromWindowEdge()
	b := startEnv(t, a.store, a.dsn, a.cfg)
	limit := 4
	_, key := a.user("alice", func(o *userOpt) { o.rateLimit = &limit })
	envs := []*testEnv{a, b, a, b}
	for i, e := range envs {
		e.do("GET", "/api/account", key, nil).wantStatus(t, http.StatusOK)
		_ = i
	}
	a.do("GET", "/api/account", key, nil).wantStatus(t, http.StatusTooManyRequests)
	b.do("GET", "/api/account", key, nil).wantStatus(t, http.StatusTooManyRequests)
}

// Requests without a valid key are limited per client IP, which slows key
// guessing; the 429 comes before the 401.
func TestAnonRateLimit(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.AnonRateLimit = 2 })
	awayFromWindowEdge()
	e.do("GET", "/api/account", "kurz_guess1", nil).wantStatus(t, http.StatusUnauthorized)
	r := e.do("GET", "/api/account", "kurz_guess2", nil).wantStatus(t, http.StatusUnauthorized)
	if r.Header.Get("X-RateLimit-Limit") != "2" || r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("anon headers %v", r.Header)
	}
	e.do("GET", "/api/account", "kurz_guess3", nil).wantStatus(t, http.StatusTooManyRequests)
	// A valid key is counted in its own window, unaffected.
	_, key := e.user("alice")
	e.do("GET", "/api/account", key, nil).wantStatus(t, http.StatusOK)
}

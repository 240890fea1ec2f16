package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kurz/shared/config"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
	"kurz/shared/secret"
)

// registering returns a config option for a registration mode with no
// per-IP limit (tests of the limit set their own).
func registering(mode string) func(*config.Config) {
	return func(c *config.Config) {
		c.Registration = mode
		c.RegistrationRateLimit = 0
	}
}

func signup(name string) map[string]any {
	return map[string]any{"email": name + "@example.com", "username": name, "password": "correct horse battery"}
}

func TestRegisterOpen(t *testing.T) {
	e := newEnv(t, registering(config.RegistrationOpen))
	r := e.do("POST", "/api/register", "", signup("alice")).wantStatus(t, http.StatusCreated)
	if r.Body["error"] != float64(0) || r.Body["username"] != "alice" || r.Body["email"] != "alice@example.com" {
		t.Fatalf("body %s", r.Raw)
	}
	id, _ := r.Body["id"].(float64)
	key, _ := r.Body["api_key"].(string)
	if id <= 0 || !strings.HasPrefix(key, secret.KeyPrefix) {
		t.Fatalf("id %v key %q", r.Body["id"], key)
	}
	// The key works at once, with the default plan's limit.
	acc := e.do("GET", "/api/account", key, nil).wantStatus(t, http.StatusOK)
	if d := acc.data(t); d["username"] != "alice" || d["status"] != "free" || d["id"] != id {
		t.Errorf("account %s", acc.Raw)
	}
	if acc.Header.Get("X-RateLimit-Limit") != "30" {
		t.Errorf("X-RateLimit-Limit %q, want the free plan's 30", acc.Header.Get("X-RateLimit-Limit"))
	}
	u, err := e.store.UserByID(context.Background(), int64(id))
	if err != nil {
		t.Fatal(err)
	}
	if u.Plan != "free" || u.RateLimit != nil || u.IsOperator || u.ExpiresAt != nil {
		t.Errorf("stored account %+v", u)
	}
	var pwHash string
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), "SELECT password_hash FROM users WHERE id = $1", int64(id)).Scan(&pwHash); err != nil {
		t.Fatal(err)
	}
	if !secret.VerifyPassword(pwHash, "correct horse battery") || !strings.HasPrefix(pwHash, "$argon2id$") {
		t.Errorf("password stored as %q", pwHash)
	}
	// An unkeyed form post works too (Decode reads forms).
	req, _ := http.NewRequest("POST", e.http.URL+"/api/register",
		strings.NewReader("email=bob%40example.com&username=bob&password=correct+horse+battery"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	e.send(req).wantStatus(t, http.StatusCreated)
}

func TestRegisterClosed(t *testing.T) {
	for _, mode := range []string{"", config.RegistrationClosed} {
		t.Run("mode "+strconv.Quote(mode), func(t *testing.T) {
			e := newEnv(t, registering(mode))
			e.do("POST", "/api/register", "", signup("alice")).wantStatus(t, http.StatusForbidden).
				wantMessage(t, "registration is closed")
			var n int
			if err := pgtest.Pool(e.store).QueryRow(context.Background(), "SELECT count(*) FROM users").Scan(&n); err != nil || n != 0 {
				t.Fatalf("users: %d %v", n, err)
			}
		})
	}
}

func TestRegisterMethod(t *testing.T) {
	e := newEnv(t, registering(config.RegistrationOpen))
	for _, m := range []string{"GET", "PUT", "DELETE"} {
		r := e.do(m, "/api/register", "", nil).wantStatus(t, http.StatusMethodNotAllowed)
		if r.Header.Get("Allow") != "POST" {
			t.Errorf("%s: Allow %q", m, r.Header.Get("Allow"))
		}
	}
}

func TestRegisterValidation(t *testing.T) {
	e := newEnv(t, registering(config.RegistrationOpen))
	e.user("taken")
	e.user("Mixed") // an operator-made name in mixed case
	with := func(k, v string) map[string]any {
		b := signup("newbie")
		b[k] = v
		return b
	}
	tests := []struct {
		name   string
		body   any
		status int
		msg    string
	}{
		{"missing email", with("email", ""), 400, "email: required"},
		{"bad email", with("email", "newbie"), 400, "email: must be a valid"},
		{"email with name", with("email", "Newbie <newbie@example.com>"), 400, "email: must be a valid"},
		{"missing username", with("username", ""), 400, "username: must be 3 to 32"},
		{"short username", with("username", "ab"), 400, "username: must be 3 to 32"},
		{"long username", with("username", strings.Repeat("a", 33)), 400, "username: must be 3 to 32"},
		{"upper-case username", with("username", "Newbie"), 400, "username: may contain only lowercase"},
		{"dot in username", with("username", "new.bie"), 400, "username: may contain only"},
		{"non-ASCII username", with("username", "nëwbie"), 400, "username: may contain only"},
		{"reserved username", with("username", "admin"), 400, "username: is reserved"},
		{"reserved mailbox name", with("username", "postmaster"), 400, "username: is reserved"},
		{"reserved service name", with("username", "kurz"), 400, "username: is reserved"},
		{"missing password", with("password", ""), 400, "password: required"},
		{"short password", with("password", "1234567"), 400, "password: must be at least 8"},
		{"long password", with("password", strings.Repeat("p", 1025)), 400, "password: must be at most 1024 bytes"},
		{"password is username", map[string]any{"email": "x@example.com", "username": "longname", "password": "LongName"}, 400, "password: must not be the username"},
		{"password is email", map[string]any{"email": "x@example.com", "username": "longname", "password": "X@Example.com"}, 400, "password: must not be the username or the email"},
		{"wrong type", map[string]any{"email": 5, "username": "newbie", "password": "correct horse"}, 400, "email"},
		{"empty body", "", 400, "empty"},
		{"duplicate email", with("email", "TAKEN@example.com"), 409, "email: already used"},
		{"duplicate username", with("username", "taken"), 409, "username: already taken"},
		{"duplicate mixed-case username", with("username", "mixed"), 409, "username: already taken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.do("POST", "/api/register", "", tt.body).wantStatus(t, tt.status).wantMessage(t, tt.msg)
		})
	}
	var n int
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), "SELECT count(*) FROM users").Scan(&n); err != nil || n != 2 {
		t.Fatalf("refused registrations left accounts: %d users, err %v", n, err)
	}
	// The longest and shortest valid names pass.
	e.do("POST", "/api/register", "", with("username", strings.Repeat("a", 32))).wantStatus(t, http.StatusCreated)
	e.do("POST", "/api/register", "", map[string]any{"email": "b@example.com", "username": "b-_", "password": "12345678"}).
		wantStatus(t, http.StatusCreated)
}

// invite stores an invitation code and returns it.
func (e *testEnv) invite(uses *int, expires *time.Time) string {
	e.t.Helper()
	code, hash := secret.NewInviteCode()
	if _, err := e.store.CreateInvite(context.Background(), hash, uses, expires); err != nil {
		e.t.Fatal(err)
	}
	return code
}

func (e *testEnv) inviteState(code string) *pgstore.Invite {
	e.t.Helper()
	return pgtest.Invite(e.t, e.store, secret.HashInviteCode(code))
}

// inviteUses is a --uses value as stored (nil = unlimited).
func inviteUses(n int) *int { return &n }

func TestRegisterInvite(t *testing.T) {
	e := newEnv(t, registering(config.RegistrationInvite))
	past := time.Now().Add(-time.Minute)
	future := time.Now().Add(time.Hour)
	expired := e.invite(nil, &past)
	usedUp := e.invite(inviteUses(1), nil)
	two := e.invite(inviteUses(2), &future)
	unlimited := e.invite(nil, nil)
	withInvite := func(name, code string) map[string]any {
		b := signup(name)
		b["invite"] = code
		return b
	}

	e.do("POST", "/api/register", "", withInvite("first", usedUp)).wantStatus(t, http.StatusCreated)
	tests := []struct {
		name   string
		body   map[string]any
		status int
		msg    string
	}{
		{"missing", signup("alice"), 400, "invite: required"},
		{"blank", withInvite("alice", "  "), 400, "invite: required"},
		{"unknown", withInvite("alice", "kurzinv_nosuchcode"), 403, "invite: unknown"},
		{"expired", withInvite("alice", expired), 403, "invite: the code has expired"},
		{"used up", withInvite("alice", usedUp), 403, "invite: the code has been used up"},
		// Refused inside the transaction, after the code's use was taken:
		// the rollback must give it back.
		{"good code, taken email", map[string]any{"email": "first@example.com", "username": "alice", "password": "correct horse battery", "invite": two}, 409, "email: already used"},
		{"good code, taken username", map[string]any{"email": "alice@example.com", "username": "first", "password": "correct horse battery", "invite": two}, 409, "username: already taken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.do("POST", "/api/register", "", tt.body).wantStatus(t, tt.status).wantMessage(t, tt.msg)
		})
	}
	if inv := e.inviteState(two); *inv.UsesLeft != 2 || inv.Used != 0 {
		t.Fatalf("refused registrations used the invite: left %d used %d", *inv.UsesLeft, inv.Used)
	}

	// A good code works until its uses are gone, and is remembered on the account.
	r := e.do("POST", "/api/register", "", withInvite("alice", " "+two+" ")).wantStatus(t, http.StatusCreated)
	if inv := e.inviteState(two); *inv.UsesLeft != 1 || inv.Used != 1 {
		t.Fatalf("after one use: left %d used %d", *inv.UsesLeft, inv.Used)
	}
	var inviteID int64
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), "SELECT invite_id FROM users WHERE id = $1", int64(r.Body["id"].(float64))).Scan(&inviteID); err != nil || inviteID != e.inviteState(two).ID {
		t.Errorf("invite_id %d, err %v", inviteID, err)
	}
	e.do("POST", "/api/register", "", withInvite("bob", two)).wantStatus(t, http.StatusCreated)
	e.do("POST", "/api/register", "", withInvite("carol", two)).wantStatus(t, http.StatusForbidden).wantMessage(t, "used up")
	for _, name := range []string{"dave", "erin", "frank"} {
		e.do("POST", "/api/register", "", withInvite(name, unlimited)).wantStatus(t, http.StatusCreated)
	}
	if inv := e.inviteState(unlimited); inv.UsesLeft != nil || inv.Used != 3 {
		t.Errorf("unlimited invite: left %v used %d", inv.UsesLeft, inv.Used)
	}
	// Open mode ignores an invite field; the code keeps its use.
	e.cfg.Registration = config.RegistrationOpen
	one := e.invite(inviteUses(1), nil)
	e.do("POST", "/api/register", "", withInvite("gina", one)).wantStatus(t, http.StatusCreated)
	if inv := e.inviteState(one); *inv.UsesLeft != 1 {
		t.Errorf("open mode took a use: left %d", *inv.UsesLeft)
	}
}

// Many registrations racing for a one-use invite: exactly one wins.
func TestRegisterInviteConcurrent(t *testing.T) {
	e := newEnv(t, registering(config.RegistrationInvite))
	code := e.invite(inviteUses(1), nil)
	const n = 8
	statuses := make([]int, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := signup(fmt.Sprintf("racer%d", i))
			b["invite"] = code
			buf, _ := json.Marshal(b)
			<-start
			res, err := http.Post(e.http.URL+"/api/register", "application/json", bytes.NewReader(buf))
			if err != nil {
				errs[i] = err
				return
			}
			res.Body.Close()
			statuses[i] = res.StatusCode
		}()
	}
	close(start)
	wg.Wait()
	created := 0
	for i := range n {
		switch {
		case errs[i] != nil:
			t.Fatalf("racer %d: %v", i, errs[i])
		case statuses[i] == http.StatusCreated:
			created++
		case statuses[i] != http.StatusForbidden:
			t.Errorf("racer %d: status %d", i, statuses[i])
		}
	}
	var users int
	if err := pgtest.Pool(e.store).QueryRow(context.Background(), "SELECT count(*) FROM users").Scan(&users); err != nil {
		t.Fatal(err)
	}
	if inv := e.inviteState(code); created != 1 || users != 1 || *inv.UsesLeft != 0 || inv.Used != 1 {
		t.Fatalf("created %d, users %d, invite left %d used %d; want exactly one", created, users, *inv.UsesLeft, inv.Used)
	}
}

// awayFromHourEdge waits out the last seconds of an hour so a test's
// requests share one registration window.
func awayFromHourEdge() {
	if left := time.Until(time.Now().Truncate(time.Hour).Add(time.Hour)); left < 5*time.Second {
		time.Sleep(left + 100*time.Millisecond)
	}
}

func TestRegisterRateLimit(t *testing.T) {
	e := newEnv(t, registering(config.RegistrationOpen), func(c *config.Config) {
		c.RegistrationRateLimit = 5
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	})
	awayFromHourEdge()
	post := func(from string, body any) response {
		t.Helper()
		buf, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", e.http.URL+"/api/register", bytes.NewReader(buf))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", from)
		return e.send(req)
	}
	tests := []struct {
		name  string
		addrs []string // the first five fill the window, the sixth is refused
		other string   // another network, not limited
	}{
		{"ipv4", []string{"203.0.113.7", "203.0.113.7", "203.0.113.7", "203.0.113.7", "203.0.113.7", "203.0.113.7"}, "203.0.113.8"},
		{"ipv6 /64", []string{"2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff::9", "2001:db8:1:2::1", "[2001:db8:1:2::5]:4711", "2001:db8:1:2:abcd::1"}, "2001:db8:1:3::1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, from := range tt.addrs[:5] {
				// Failed attempts count too: only the first is a valid sign-up.
				body := map[string]any{"email": "bad"}
				if i == 0 {
					body = signup("u" + strings.NewReplacer(".", "", ":", "").Replace(tt.name))
				}
				r := post(from, body)
				if r.Status == http.StatusTooManyRequests {
					t.Fatalf("attempt %d refused early: %s", i+1, r.Raw)
				}
				if r.Header.Get("X-RateLimit-Limit") != "5" || r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(4-i) {
					t.Errorf("attempt %d: limit %q remaining %q", i+1, r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"))
				}
				reset, err := strconv.ParseInt(r.Header.Get("X-RateLimit-Reset"), 10, 64)
				if err != nil || reset <= time.Now().Unix() || reset > time.Now().Add(time.Hour+time.Second).Unix() {
					t.Errorf("X-RateLimit-Reset = %q", r.Header.Get("X-RateLimit-Reset"))
				}
			}
			r := post(tt.addrs[5], signup("late"+strconv.Itoa(len(tt.name)))).wantStatus(t, http.StatusTooManyRequests)
			r.wantMessage(t, "5 requests per hour")
			wait, err := strconv.Atoi(r.Header.Get("Retry-After"))
			if err != nil || wait < 1 || wait > 3600 || r.Header.Get("X-RateLimit-Remaining") != "0" {
				t.Errorf("429 headers: %v", r.Header)
			}
			post(tt.other, map[string]any{"email": "bad"}).wantStatus(t, http.StatusBadRequest)
		})
	}
	// The registration bucket is not the keyless API bucket of the same IP.
	req, _ := http.NewRequest("GET", e.http.URL+"/api/account", nil)
	req.Header.Set("X-Forwarded-For", "203.0.113.7")
	e.send(req).wantStatus(t, http.StatusUnauthorized)
}

// A page on another origin cannot make its visitors' browsers sign up;
// origins listed in KURZ_CORS_ORIGINS (by name, not "*") can.
func TestRegisterCrossOrigin(t *testing.T) {
	e := newEnv(t, registering(config.RegistrationOpen), func(c *config.Config) {
		c.CORSOrigins = []string{"https://app.example.com", "*"}
	})
	post := func(origin, site string, body any) response {
		t.Helper()
		buf, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", e.http.URL+"/api/register", bytes.NewReader(buf))
		req.Header.Set("Content-Type", "text/plain")
		req.Header.Set("Origin", origin)
		req.Header.Set("Sec-Fetch-Site", site)
		return e.send(req)
	}
	post("https://evil.example", "cross-site", signup("victim")).wantStatus(t, http.StatusForbidden).wantMessage(t, "another origin")
	post("https://app.example.com", "cross-site", signup("friend")).wantStatus(t, http.StatusCreated)
	post(e.http.URL, "same-origin", signup("local")).wantStatus(t, http.StatusCreated)
}

// Refusals that come before the per-IP count — a closed server, a page on
// another origin — do not use up the limit: a visitor blocked by them can
// still register once the server opens, or from the server's own page.
func TestRegisterRefusalsNotCounted(t *testing.T) {
	tests := []struct {
		name   string
		mode   string
		origin string // "" = no Origin header (a non-browser client)
		msg    string
	}{
		{"closed", config.RegistrationClosed, "", "registration is closed"},
		{"cross-origin", config.RegistrationOpen, "https://evil.example", "another origin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, registering(tt.mode), func(c *config.Config) { c.RegistrationRateLimit = 1 })
			awayFromHourEdge()
			post := func(origin string, body any) response {
				t.Helper()
				buf, _ := json.Marshal(body)
				req, _ := http.NewRequest("POST", e.http.URL+"/api/register", bytes.NewReader(buf))
				req.Header.Set("Content-Type", "application/json")
				if origin != "" {
					req.Header.Set("Origin", origin)
					req.Header.Set("Sec-Fetch-Site", "cross-site")
				}
				return e.send(req)
			}
			for i := range 3 {
				post(tt.origin, signup(fmt.Sprintf("refused%d", i))).wantStatus(t, http.StatusForbidden).wantMessage(t, tt.msg)
			}
			var buckets int
			if err := pgtest.Pool(e.store).QueryRow(context.Background(), "SELECT count(*) FROM rate_limits").Scan(&buckets); err != nil || buckets != 0 {
				t.Fatalf("refusals were counted: %d rate_limits rows, err %v", buckets, err)
			}
			// The one allowed attempt is still there, and the limit is live.
			e.cfg.Registration = config.RegistrationOpen
			post("", signup("welcome")).wantStatus(t, http.StatusCreated)
			post("", signup("another")).wantStatus(t, http.StatusTooManyRequests)
		})
	}
}

package dashboard

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/admin/internal/api"
	"kurz/admin/internal/stats"
	"kurz/shared/browsertest"
	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
	"kurz/shared/config"
	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
	"kurz/shared/secret"
)

// env is the admin's real handler (API and dashboard) on a loopback
// listener, on a fresh PostgreSQL and ClickHouse database each.
type env struct {
	t     *testing.T
	store *pgstore.Store
	ch    driver.Conn
	cfg   *config.Config
	api   *api.Server
	dash  *Server
	base  string // http://127.0.0.1:port
	// pgDSN and chDSN are the databases' addresses, for processes a test
	// starts beside the handler (a real edge).
	pgDSN, chDSN string
}

// newEnv starts the env; opts may adjust the config first. Sign-up is open
// and its per-IP limit out of the way unless opts say otherwise.
func newEnv(t *testing.T, opts ...func(*config.Config)) *env {
	t.Helper()
	st, pgDSN := pgtest.Store(t)
	conn, chDSN := chtest.New(t)
	cfg := &config.Config{BaseURL: "http://sho.rt", BaseHost: "sho.rt", AnonRateLimit: 1000,
		Secret: "test-secret", Registration: config.RegistrationOpen, RegistrationRateLimit: 1000}
	for _, o := range opts {
		o(cfg)
	}
	e := &env{t: t, store: st, ch: conn, cfg: cfg, pgDSN: pgDSN, chDSN: chDSN}
	e.api = api.New(api.Deps{Store: st, Config: cfg, Stats: stats.New(conn)})
	var err error
	if e.dash, err = New(Deps{API: e.api, Store: st, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.base = "http://" + ln.Addr().String()
	hs := &http.Server{Handler: e.api.HandlerWith(e.dash.Handler()), ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln) //nolint:errcheck // ends at Close
	// The browser keeps connections alive past the test: Close, not Shutdown.
	t.Cleanup(func() { hs.Close() })
	return e
}

// statsDown points the API's stats reads at a closed ClickHouse
// connection: every read fails as when ClickHouse is unreachable.
func (e *env) statsDown() {
	e.t.Helper()
	dead, err := chstore.Open(context.Background(), os.Getenv(chtest.EnvURL))
	if err != nil {
		e.t.Fatal(err)
	}
	dead.Close()
	e.api = api.New(api.Deps{Store: e.store, Config: e.cfg, Stats: stats.New(dead)})
	e.dash.api = e.api
}

// testPassword is every test account's password.
const testPassword = "correct horse battery"

// user creates an account with testPassword.
func (e *env) user(name string) *link.User {
	e.t.Helper()
	hash, err := secret.HashPassword(testPassword)
	if err != nil {
		e.t.Fatal(err)
	}
	_, keyHash := secret.NewAPIKey()
	u, err := e.store.CreateUser(context.Background(), pgstore.NewUser{Email: name + "@example.com", Username: name,
		Plan: "free", PasswordHash: hash, APIKeyHash: keyHash})
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

// link creates a link of u through the API server's own write path.
func (e *env) link(u *link.User, fields map[string]string) *link.Link {
	e.t.Helper()
	in := &api.LinkInput{}
	for k, v := range fields {
		*fieldPtr(in, k) = ptr(v)
	}
	res, err := e.api.AddLink(context.Background(), u, in)
	if err != nil {
		e.t.Fatalf("add link %v: %v", fields, err)
	}
	return res.Link
}

// signIn signs tab in as login with testPassword and checks it lands on
// the link table.
func (e *env) signIn(tab *browsertest.Tab, login string) {
	e.t.Helper()
	if st := tab.Open(e.base + "/login"); st != http.StatusOK {
		e.t.Fatalf("sign-in page: status %d", st)
	}
	tab.SetValue("#f-login", login)
	tab.SetValue("#f-password", testPassword)
	if st := tab.ClickNavigate("form[action='/login'] button[type=submit]"); st != http.StatusOK {
		e.t.Fatalf("sign in as %s: status %d, page %q", login, st, tab.Text("main"))
	}
	if u := tab.URL(); u != e.base+"/links" {
		e.t.Fatalf("after sign-in at %s", u)
	}
}

// signUp signs up name (name@example.com, testPassword) in tab and checks
// it lands on the welcome page with the API key.
func (e *env) signUp(tab *browsertest.Tab, name string) {
	e.t.Helper()
	tab.Open(e.base + "/signup")
	tab.SetValue("#f-email", name+"@example.com")
	tab.SetValue("#f-username", name)
	tab.SetValue("#f-password", testPassword)
	if st := tab.ClickNavigate("main form button[type=submit]"); st != http.StatusCreated {
		e.t.Fatalf("sign-up: status %d: %s", st, tab.Text("main"))
	}
}

// client is a cookie-keeping HTTP client of the env, without a browser:
// for requests a browser would not send (forged ones).
type client struct {
	e  *env
	hc *http.Client
}

func (e *env) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{e: e, hc: &http.Client{Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is a response read whole.
type page struct {
	status int
	header http.Header
	body   string
}

func (c *client) do(method, path string, form url.Values, header map[string]string) page {
	c.e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.e.base+path, body)
	if err != nil {
		c.e.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		c.e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil && !errors.Is(err, io.EOF) {
		c.e.t.Fatal(err)
	}
	return page{status: res.StatusCode, header: res.Header, body: string(b)}
}

func (c *client) get(path string) page { return c.do(http.MethodGet, path, nil, nil) }

func (c *client) post(path string, form url.Values) page {
	return c.do(http.MethodPost, path, form, nil)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// token is the CSRF token of the form on the page at path.
func (c *client) token(path string) string {
	c.e.t.Helper()
	p := c.get(path)
	m := csrfRE.FindStringSubmatch(p.body)
	if m == nil {
		c.e.t.Fatalf("no CSRF token on %s (status %d)", path, p.status)
	}
	return m[1]
}

// signIn signs the client in as login.
func (c *client) signIn(login string) {
	c.e.t.Helper()
	p := c.post("/login", url.Values{"csrf": {c.token("/login")}, "login": {login}, "password": {testPassword}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/links" {
		c.e.t.Fatalf("sign in as %s: status %d, location %q", login, p.status, p.header.Get("Location"))
	}
}

// insertClicks writes click rows to ClickHouse as the edge's pipeline does.
func insertClicks(t *testing.T, e *env, rows []click.Row) {
	t.Helper()
	var b click.Block
	for i := range rows {
		b.Add(&rows[i])
	}
	if err := chstore.InsertBlock(context.Background(), e.ch, &b); err != nil {
		t.Fatal(err)
	}
}

package dashboard

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"kurz/shared/config"
	"kurz/shared/secret"
)

var keyRE = regexp.MustCompile(`value="(kurz_[0-9A-Za-z]{43})"`)

// fieldError is the error shown under the control with this id ("" when
// none).
func fieldError(body, id string) string {
	m := regexp.MustCompile(`<p class="error" id="` + regexp.QuoteMeta(id) + `-error">([^<]*)</p>`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return m[1]
}

// valueOf is the value attribute of the input with this id.
func valueOf(body, id string) string {
	m := regexp.MustCompile(`<input id="` + regexp.QuoteMeta(id) + `" name="[^"]*" type="[^"]*" value="([^"]*)"`).FindStringSubmatch(body)
	if m == nil {
		return "<no input>"
	}
	return m[1]
}

// TestSignup: sign-up goes through the registration API's rules, modes and
// per-IP limit (one bucket for the page and POST /api/register), shows
// every wrong field at once, keeps what was typed, and signs the new
// account in with a working API key.
func TestSignup(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.RegistrationRateLimit = 3 })
	c := e.client()
	r := c.post("/signup", url.Values{"csrf": {c.token("/signup")}, "email": {"ann@example"}, "username": {"Ann"}, "password": {"ann"}})
	if r.status != http.StatusBadRequest {
		t.Fatalf("bad sign-up: status %d", r.status)
	}
	for id, want := range map[string]string{
		"f-email": "Must be a valid e-mail address", "f-username": "May contain only lowercase letters", "f-password": "Must be at least 8 characters",
	} {
		if got := fieldError(r.body, id); !strings.HasPrefix(got, want) {
			t.Errorf("%s error %q, want %q…", id, got, want)
		}
	}
	if valueOf(r.body, "f-email") != "ann@example" || valueOf(r.body, "f-username") != "Ann" {
		t.Error("the refused form lost what was typed")
	}

	r = c.post("/signup", url.Values{"csrf": {c.token("/signup")}, "email": {"ann@example.com"}, "username": {"ann"}, "password": {testPassword}})
	key := keyRE.FindStringSubmatch(r.body)
	if r.status != http.StatusCreated || key == nil {
		t.Fatalf("sign-up: status %d, key %v", r.status, key)
	}
	req, _ := http.NewRequest(http.MethodGet, e.base+"/api/account", nil)
	req.Header.Set("Authorization", "Bearer "+key[1])
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("the new key against the API: %v %v", res, err)
	}
	if r := c.get("/links"); r.status != http.StatusOK {
		t.Errorf("not signed in after sign-up: %d", r.status)
	}

	// Taken email: next to the field, the rest kept. The per-IP limit (3
	// per hour) is the API's: its own sign-up counts in the same bucket.
	d := e.client()
	r = d.post("/signup", url.Values{"csrf": {d.token("/signup")}, "email": {"ANN@example.com"}, "username": {"ann2"}, "password": {testPassword}})
	if r.status != http.StatusConflict || fieldError(r.body, "f-email") != "Already used by another account" || valueOf(r.body, "f-username") != "ann2" {
		t.Errorf("taken email: status %d, error %q", r.status, fieldError(r.body, "f-email"))
	}
	res, err := http.Post(e.base+"/api/register", "application/json",
		bytes.NewBufferString(`{"email":"bob@example.com","username":"bob","password":"`+testPassword+`"}`))
	if err != nil || res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the API's sign-up after 3 on the page: %v %v", res, err)
	}
	r = d.post("/signup", url.Values{"csrf": {d.token("/signup")}, "email": {"cy@example.com"}, "username": {"cy"}, "password": {testPassword}})
	if r.status != http.StatusTooManyRequests || !strings.Contains(r.body, "Rate limit exceeded: 3 requests per hour") {
		t.Errorf("sign-up past the limit: status %d", r.status)
	}
}

// TestSignupModes: a closed server refuses sign-up on the page as the API
// does; an invite server asks for the code.
func TestSignupModes(t *testing.T) {
	closed := newEnv(t, func(c *config.Config) { c.Registration = config.RegistrationClosed })
	c := closed.client()
	if r := c.get("/signup"); r.status != http.StatusForbidden || !strings.Contains(r.body, "Sign-up is closed on this server") {
		t.Errorf("closed sign-up page: %d", r.status)
	}
	if r := c.get("/login"); strings.Contains(r.body, `href="/signup"`) {
		t.Error("a closed server's sign-in page links to sign-up")
	}
	r := c.post("/signup", url.Values{"csrf": {c.token("/login")}, "email": {"x@example.com"}, "username": {"xyz"}, "password": {testPassword}})
	if r.status != http.StatusForbidden || !strings.Contains(r.body, "Sign-up is closed on this server") {
		t.Errorf("closed sign-up post: %d", r.status)
	}

	invite := newEnv(t, func(c *config.Config) { c.Registration = config.RegistrationInvite })
	c = invite.client()
	r = c.post("/signup", url.Values{"csrf": {c.token("/signup")}, "email": {"x@example.com"}, "username": {"xyz"}, "password": {testPassword}})
	if r.status != http.StatusBadRequest || !strings.HasPrefix(fieldError(r.body, "f-invite"), "Required") {
		t.Errorf("invite sign-up without code: %d %q", r.status, fieldError(r.body, "f-invite"))
	}
	r = c.post("/signup", url.Values{"csrf": {c.token("/signup")}, "email": {"x@example.com"}, "username": {"xyz"}, "password": {testPassword}, "invite": {"kurzinv_nope"}})
	if r.status != http.StatusForbidden || !strings.HasPrefix(fieldError(r.body, "f-invite"), "Unknown code") {
		t.Errorf("unknown invite: %d %q", r.status, fieldError(r.body, "f-invite"))
	}
}

// TestAccountChanges: email and password changes need the current password
// and follow the API's rules; a new API key is shown once and replaces the
// old one.
func TestAccountChanges(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	e.user("bob")
	e.link(ann, map[string]string{"url": "https://example.com/x"})
	c := e.client()
	c.signIn("ann")
	p := c.get("/account")
	for _, want := range []string{"ann@example.com", "30 requests per minute", "<dt>Plan</dt><dd>free</dd>", "<dt>Links</dt><dd>1</dd>"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("account page lacks %q", want)
		}
	}
	post := func(path string, v url.Values) page {
		v.Set("csrf", c.token("/account"))
		return c.post(path, v)
	}
	r := post("/account/email", url.Values{"email": {"ann.new@example.com"}, "current": {"not my password"}})
	if r.status != http.StatusBadRequest || fieldError(r.body, "email-current") != "This is not your current password" ||
		valueOf(r.body, "email-new") != "ann.new@example.com" {
		t.Errorf("wrong current password: %d %q", r.status, fieldError(r.body, "email-current"))
	}
	r = post("/account/email", url.Values{"email": {"BOB@example.com"}, "current": {testPassword}})
	if r.status != http.StatusConflict || fieldError(r.body, "email-new") != "Already used by another account" {
		t.Errorf("taken email: %d %q", r.status, fieldError(r.body, "email-new"))
	}
	if r = post("/account/email", url.Values{"email": {"ann.new@example.com"}, "current": {testPassword}}); r.status != http.StatusSeeOther {
		t.Fatalf("email change: %d", r.status)
	}
	if !strings.Contains(c.get("/account").body, "Your email address is now ann.new@example.com.") {
		t.Error("no notice of the email change")
	}
	if u, _, err := e.store.LoginUser(context.Background(), "ann.new@example.com"); err != nil || u.ID != ann.ID {
		t.Errorf("email not changed: %v", err)
	}

	r = post("/account/password", url.Values{"current": {testPassword}, "new": {"a new passphrase"}, "confirm": {"a new passphrase!"}})
	if r.status != http.StatusBadRequest || fieldError(r.body, "pw-confirm") != "Does not match the new password" {
		t.Errorf("mismatched confirmation: %d %q", r.status, fieldError(r.body, "pw-confirm"))
	}
	r = post("/account/password", url.Values{"current": {testPassword}, "new": {"ANN"}, "confirm": {"ANN"}})
	if r.status != http.StatusBadRequest || !strings.HasPrefix(fieldError(r.body, "pw-new"), "Must be at least 8 characters") {
		t.Errorf("short password: %d %q", r.status, fieldError(r.body, "pw-new"))
	}

	var keys []string
	for range 2 {
		r = post("/account/key", url.Values{})
		m := keyRE.FindStringSubmatch(r.body)
		if r.status != http.StatusOK || m == nil {
			t.Fatalf("rotate: %d", r.status)
		}
		keys = append(keys, m[1])
	}
	if u, err := e.store.UserByKeyHash(context.Background(), secret.HashAPIKey(keys[1])); err != nil || u.ID != ann.ID {
		t.Errorf("the new key does not work: %v", err)
	}
	if _, err := e.store.UserByKeyHash(context.Background(), secret.HashAPIKey(keys[0])); err == nil {
		t.Error("the replaced key still works")
	}
	if strings.Contains(c.get("/account").body, keys[1]) {
		t.Error("the key is shown again")
	}
}

// TestPasswordResetPage: a reset link sets a new password once, with the
// API's rules, and ends every session of the account.
func TestPasswordResetPage(t *testing.T) {
	e := newEnv(t)
	ann := e.user("ann")
	signedIn := e.client()
	signedIn.signIn("ann")
	token, hash := secret.NewToken()
	if _, _, err := e.store.CreatePasswordReset(context.Background(), "ann@example.com", hash, time.Hour); err != nil {
		t.Fatal(err)
	}
	c := e.client()
	path := ResetPath(token)
	if r := c.get(path); r.status != http.StatusOK || !strings.Contains(r.body, "<strong>ann</strong>") {
		t.Fatalf("reset page: %d", r.status)
	}
	if r := c.get(ResetPath("made-up")); r.status != http.StatusNotFound || !strings.Contains(r.body, "This link cannot be used") {
		t.Errorf("unknown token: %d", r.status)
	}
	r := c.post(path, url.Values{"csrf": {c.token(path)}, "new": {"ann@example.com"}, "confirm": {"ann@example.com"}})
	if r.status != http.StatusBadRequest || fieldError(r.body, "f-new") != "Must not be the username or the email address" {
		t.Errorf("password = email: %d %q", r.status, fieldError(r.body, "f-new"))
	}
	r = c.post(path, url.Values{"csrf": {c.token(path)}, "new": {"a fresh passphrase"}, "confirm": {"a fresh passphrase"}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/login" {
		t.Fatalf("reset: %d %s", r.status, r.header.Get("Location"))
	}
	if r := c.get(path); r.status != http.StatusNotFound {
		t.Errorf("a spent link: %d", r.status)
	}
	if r := signedIn.get("/links"); r.status != http.StatusSeeOther {
		t.Errorf("a session survived the reset: %d", r.status)
	}
	if h, _ := e.store.PasswordHash(context.Background(), ann.ID); !secret.VerifyPassword(h, "a fresh passphrase") {
		t.Error("the new password was not stored")
	}
}

package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kurz/shared/config"
	"kurz/shared/link"
	"kurz/shared/secret"
)

// loginData is the sign-in page's.
type loginData struct {
	Form       *form
	Next       string
	SignupOpen bool
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request, c *call) error {
	if c.user != nil {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return nil
	}
	f := newForm()
	s.render(w, r, c, http.StatusOK, "login", "Sign in", s.loginData(f, r.URL.Query().Get("next")))
	return nil
}

func (s *Server) loginData(f *form, next string) loginData {
	return loginData{Form: f, Next: safeNext(next), SignupOpen: s.signupOpen()}
}

// login checks the credentials and starts a session. Wrong ones get one
// message whichever part was wrong, and the password is never shown again.
func (s *Server) login(w http.ResponseWriter, r *http.Request, c *call) error {
	f := readForm(r, "login", "password")
	next := r.PostFormValue("next")
	login := strings.TrimSpace(f.Val("login"))
	f.Values["password"] = ""
	if login == "" {
		f.fail("login", "enter your email address or username", http.StatusBadRequest)
	}
	if r.PostFormValue("password") == "" {
		f.fail("password", "enter your password", http.StatusBadRequest)
	}
	if f.Failed() {
		s.render(w, r, c, f.Status, "login", "Sign in", s.loginData(f, next))
		return nil
	}
	u, wait, err := s.checkPassword(r.Context(), s.api.ClientIP(r), login, r.PostFormValue("password"),
		func(ctx context.Context) (*link.User, string, error) { return s.store.LoginUser(ctx, login) })
	switch {
	case err != nil:
		return err
	case wait > 0:
		w.Header().Set("Retry-After", strconv.Itoa(waitSeconds(wait)))
		f.Alert, f.Status = "Too many sign-in attempts. Try again in "+waitText(wait)+".", http.StatusTooManyRequests
	case u == nil:
		f.Alert, f.Status = "The email address or username and password do not match an account.", http.StatusUnauthorized
	case u.Expired(time.Now()):
		f.Alert, f.Status = "This account expired on "+link.FormatTimePtr(u.ExpiresAt)+" UTC. Ask the operator of this server to renew it.", http.StatusForbidden
	}
	if f.Failed() {
		s.render(w, r, c, f.Status, "login", "Sign in", s.loginData(f, next))
		return nil
	}
	if err := s.startSession(w, r, c, u.ID); err != nil {
		return err
	}
	http.Redirect(w, r, safeNext(next), http.StatusSeeOther)
	return nil
}

// logout ends the session here and in the store.
func (s *Server) logout(w http.ResponseWriter, r *http.Request, c *call) error {
	if c.sid != "" {
		if err := s.store.DeleteSession(r.Context(), secret.HashToken(c.sid)); err != nil {
			return err
		}
	}
	s.clearCookie(w, c, c.sessionName())
	http.Redirect(w, r, "/login", http.StatusSeeOther)
	return nil
}

// signupOpen reports whether KURZ_REGISTRATION lets visitors sign up.
func (s *Server) signupOpen() bool {
	return s.cfg.Registration == config.RegistrationOpen || s.cfg.Registration == config.RegistrationInvite
}

// safeNext is where to go after signing in: a path on this site only
// ("/links", never "//evil.example" or "https://…"), /links by default.
func safeNext(next string) string {
	if next == "" || next[0] != '/' || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n\t") {
		return "/links"
	}
	if u, err := url.Parse(next); err != nil || u.Scheme != "" || u.Host != "" {
		return "/links"
	}
	return next
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

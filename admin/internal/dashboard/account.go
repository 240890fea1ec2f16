package dashboard

import (
	"context"
	"net/http"

	"kurz/admin/internal/api"
	"kurz/shared/link"
	"kurz/shared/secret"
)

// accountData is the account page's: the account, its plan and usage, and
// the forms (each showing only its own errors).
type accountData struct {
	User     *link.User
	Limit    int // API requests per minute; 0 = unlimited
	Used     int // API requests in the current minute
	Links    int
	Email    *form
	Password *form
	Key      *form
	// NewKey is the API key just issued, shown this once.
	NewKey string
}

func (s *Server) accountPage(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.showAccount(w, r, c, accountData{})
}

// showAccount renders the account page with the forms of d (blank ones
// where d has none), with the status of the refused form if any.
func (s *Server) showAccount(w http.ResponseWriter, r *http.Request, c *call, d accountData) error {
	var err error
	d.User, d.Limit = c.user, api.LimitOf(c.user)
	if d.Links, err = s.store.CountLinks(r.Context(), c.user.ID); err != nil {
		return err
	}
	if d.Used, err = s.api.APIUsage(r.Context(), c.user); err != nil {
		return err
	}
	status := http.StatusOK
	for _, f := range []**form{&d.Email, &d.Password, &d.Key} {
		if *f == nil {
			*f = newForm()
		} else if (*f).Failed() {
			status = (*f).Status
		}
	}
	s.render(w, r, c, status, "account", "Account", d)
	return nil
}

// currentPassword checks the signed-in user's password, throttled like a
// sign-in; a refusal is recorded on f's field "current".
func (s *Server) currentPassword(r *http.Request, c *call, f *form) error {
	pw := f.Val("current")
	if pw == "" {
		f.fail("current", "enter your current password", http.StatusBadRequest)
		return nil
	}
	u, wait, err := s.checkPassword(r.Context(), s.api.ClientIP(r), c.user.Username, pw,
		func(ctx context.Context) (*link.User, string, error) {
			hash, err := s.store.PasswordHash(ctx, c.user.ID)
			return c.user, hash, err
		})
	switch {
	case err != nil:
		return err
	case wait > 0:
		f.fail("current", "too many wrong passwords; try again in "+waitText(wait), http.StatusTooManyRequests)
	case u == nil:
		f.fail("current", "this is not your current password", http.StatusBadRequest)
	}
	if f.Err("current") != "" {
		f.Values["current"] = ""
	}
	return nil
}

// changeEmail sets a new address after the current password, with the
// API's rules (PUT /api/account/update).
func (s *Server) changeEmail(w http.ResponseWriter, r *http.Request, c *call) error {
	f := readForm(r, "email", "current")
	if _, err := api.ValidEmail(f.Val("email")); err != nil {
		f.refuse(err, map[string]string{"email": "email"})
	} else if err := s.currentPassword(r, c, f); err != nil {
		return err
	}
	if !f.Failed() {
		email := f.Val("email")
		if err := s.api.UpdateAccount(r.Context(), c.user, &email, nil); err != nil && !f.refuse(err, map[string]string{"email": "email"}) {
			return err
		}
	}
	if f.Failed() {
		return s.showAccount(w, r, c, accountData{Email: f})
	}
	s.setFlash(w, c, flash{Kind: flashOK, Text: "Your email address is now " + f.Val("email") + "."})
	http.Redirect(w, r, "/account", http.StatusSeeOther)
	return nil
}

// changePassword sets a new password after the current one, with the
// API's rules. The store ends every session of the account with it; this
// browser gets a fresh one.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request, c *call) error {
	f := readForm(r, "current", "new", "confirm")
	fields := map[string]string{"password": "new"}
	if err := api.ValidPassword("password", f.Val("new"), c.user.Username, c.user.Email); err != nil {
		f.refuse(err, fields)
	} else if f.Val("confirm") != f.Val("new") {
		f.fail("confirm", "does not match the new password", http.StatusBadRequest)
	} else if err := s.currentPassword(r, c, f); err != nil {
		return err
	}
	if !f.Failed() {
		pw := f.Val("new")
		if err := s.api.UpdateAccount(r.Context(), c.user, nil, &pw); err != nil && !f.refuse(err, fields) {
			return err
		}
	}
	if f.Failed() {
		if f.Err("new") != "" || f.Err("confirm") != "" {
			f.Values["new"], f.Values["confirm"] = "", "" // typed again, together
		}
		return s.showAccount(w, r, c, accountData{Password: f})
	}
	if err := s.startSession(w, r, c, c.user.ID); err != nil {
		return err
	}
	s.setFlash(w, c, flash{Kind: flashOK, Text: "Your password has been changed. Every other session of your account was signed out."})
	http.Redirect(w, r, "/account", http.StatusSeeOther)
	return nil
}

// rotateKey issues a new API key and shows it once; the old key stops
// working at once. The response is the page itself (no redirect), so the
// key exists nowhere but in it, and pages are never cached.
func (s *Server) rotateKey(w http.ResponseWriter, r *http.Request, c *call) error {
	key, hash := secret.NewAPIKey()
	if err := s.store.SetAPIKey(r.Context(), c.user.ID, hash); err != nil {
		return err
	}
	return s.showAccount(w, r, c, accountData{NewKey: key})
}

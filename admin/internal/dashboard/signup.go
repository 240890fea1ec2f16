package dashboard

import (
	"net/http"

	"kurz/admin/internal/api"
	"kurz/shared/config"
)

// signupFields maps the registration API's field names to the form's
// (the same names).
var signupFields = map[string]string{"email": "email", "username": "username", "password": "password", "invite": "invite"}

// signupData is the sign-up page's.
type signupData struct {
	Form   *form
	Closed bool
	Invite bool
}

// welcomeData is the page after a sign-up: the new account's API key,
// shown this once.
type welcomeData struct {
	Key string
}

func (s *Server) signupPage(w http.ResponseWriter, r *http.Request, c *call) error {
	if c.user != nil {
		http.Redirect(w, r, "/links", http.StatusSeeOther)
		return nil
	}
	status := http.StatusOK
	if !s.signupOpen() {
		status = http.StatusForbidden
	}
	s.render(w, r, c, status, "signup", "Create an account", s.signupData(newForm()))
	return nil
}

func (s *Server) signupData(f *form) signupData {
	return signupData{Form: f, Closed: !s.signupOpen(), Invite: s.cfg.Registration == config.RegistrationInvite}
}

// signup registers through the API's own rules, mode and per-IP limit,
// signs the new account in and shows its API key once.
func (s *Server) signup(w http.ResponseWriter, r *http.Request, c *call) error {
	f := readForm(r, "email", "username", "password", "invite")
	reg := api.Registration{Email: f.Val("email"), Username: f.Val("username"), Password: f.Val("password"), Invite: f.Val("invite")}
	u, key, err := s.api.Register(r.Context(), s.api.ClientIP(r), reg)
	if err != nil {
		if !f.refuse(err, signupFields) {
			return err
		}
		if badRequest(err) {
			f.refuseAll(api.RegistrationErrors(reg), signupFields)
		}
		if f.Err("password") != "" {
			f.Values["password"] = "" // refused: it has to be typed again anyway
		}
		s.render(w, r, c, f.Status, "signup", "Create an account", s.signupData(f))
		return nil
	}
	if err := s.startSession(w, r, c, u.ID); err != nil {
		return err
	}
	c.user = u
	s.render(w, r, c, http.StatusCreated, "welcome", "Welcome", welcomeData{Key: key})
	return nil
}

package dashboard

import (
	"errors"
	"net/http"

	"kurz/admin/internal/api"
	"kurz/shared/link"
	"kurz/shared/secret"
)

// Password reset: `admin user reset-password --email E` prints a link
// /reset/<token> (no mail server is assumed); its page sets a new
// password once. Spending the token ends every session of the account.

// ResetPath is the path of a reset link for token.
func ResetPath(token string) string { return "/reset/" + token }

// errResetLink is every token that cannot be used, whatever the reason.
var errResetLink = &pageError{status: http.StatusNotFound, title: "This link cannot be used",
	text: "The password reset link is unknown, has expired or was used already. Ask the operator of this server for a new one."}

// resetData is the reset page's.
type resetData struct {
	User *link.User
	Form *form
}

func (s *Server) resetPage(w http.ResponseWriter, r *http.Request, c *call) error {
	u, err := s.store.PasswordResetUser(r.Context(), secret.HashToken(r.PathValue("token")))
	if errors.Is(err, link.ErrNotFound) {
		return errResetLink
	}
	if err != nil {
		return err
	}
	s.render(w, r, c, http.StatusOK, "reset", "Choose a new password", resetData{User: u, Form: newForm()})
	return nil
}

// reset checks the new password with the API's rules and spends the token.
func (s *Server) reset(w http.ResponseWriter, r *http.Request, c *call) error {
	hash := secret.HashToken(r.PathValue("token"))
	u, err := s.store.PasswordResetUser(r.Context(), hash)
	if errors.Is(err, link.ErrNotFound) {
		return errResetLink
	}
	if err != nil {
		return err
	}
	f := readForm(r, "new", "confirm")
	if err := api.ValidPassword("password", f.Val("new"), u.Username, u.Email); err != nil {
		f.refuse(err, map[string]string{"password": "new"})
	} else if f.Val("confirm") != f.Val("new") {
		f.fail("confirm", "does not match the new password", http.StatusBadRequest)
	}
	if f.Failed() {
		f.Values["new"], f.Values["confirm"] = "", "" // typed again, together
		s.render(w, r, c, f.Status, "reset", "Choose a new password", resetData{User: u, Form: f})
		return nil
	}
	pwHash, err := s.api.HashPassword(r.Context(), f.Val("new"))
	if err != nil {
		return err
	}
	if _, err := s.store.ResetPassword(r.Context(), hash, pwHash); errors.Is(err, link.ErrNotFound) {
		return errResetLink // spent by a concurrent request
	} else if err != nil {
		return err
	}
	if c.sid != "" {
		s.clearCookie(w, c, c.sessionName()) // the reset ended it
	}
	s.setFlash(w, c, flash{Kind: flashOK, Text: "Your password has been set. Sign in with it."})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
	return nil
}

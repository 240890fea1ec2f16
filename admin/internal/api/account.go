package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"unicode/utf8"

	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/secret"
)

func (s *Server) accountRoutes() {
	s.handle(s.api, "/api/account", Methods{http.MethodGet: s.getAccount})
	s.handle(s.api, "/api/account/update", Methods{http.MethodPut: s.updateAccount})
	s.handle(s.api, "/api/account/key/rotate", Methods{http.MethodPost: s.rotateKey})
}

func (s *Server) getAccount(w http.ResponseWriter, r *http.Request, u *link.User) error {
	return OK(w, map[string]any{"data": map[string]any{
		"id":         u.ID,
		"email":      u.Email,
		"username":   u.Username,
		"avatar":     u.Avatar,
		"status":     u.Plan,
		"expires":    link.FormatTimePtr(u.ExpiresAt),
		"registered": link.FormatTime(u.CreatedAt),
	}})
}

type accountUpdate struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
}

// Password bounds, for account update, registration and `admin user
// create` alike.
const (
	// MinPasswordLen is the shortest accepted password, in characters.
	MinPasswordLen = 8
	// MaxPasswordBytes caps passwords: argon2 hashes all of it.
	MaxPasswordBytes = 1024
)

func (s *Server) updateAccount(w http.ResponseWriter, r *http.Request, u *link.User) error {
	var in accountUpdate
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	if err := s.UpdateAccount(r.Context(), u, in.Email, in.Password); err != nil {
		return err
	}
	return Message(w, "account updated")
}

// UpdateAccount checks and applies a new email and/or password (nil =
// keep) to u: PUT /api/account/update and the dashboard's account page.
// A new password ends every dashboard session of the account (the store
// does it in the same transaction).
func (s *Server) UpdateAccount(ctx context.Context, u *link.User, newEmail, newPassword *string) error {
	if newEmail == nil && newPassword == nil {
		return BadRequest("email", "send email and/or password")
	}
	var email, hash *string
	if newEmail != nil {
		e, err := ValidEmail(*newEmail)
		if err != nil {
			return err
		}
		email = &e
	}
	if newPassword != nil {
		forbidden := []string{u.Username, u.Email}
		if email != nil {
			forbidden = append(forbidden, *email)
		}
		if err := ValidPassword("password", *newPassword, forbidden...); err != nil {
			return err
		}
		h, err := s.HashPassword(ctx, *newPassword)
		if err != nil {
			return err
		}
		hash = &h
	}
	if err := s.store.UpdateAccount(ctx, u.ID, email, hash); err != nil {
		if errors.Is(err, link.ErrConflict) {
			return Conflict("email: already used by another account")
		}
		return err
	}
	return nil
}

// APIUsage is the number of link API requests u made in the current
// rate-limit window (the guard's bucket), for the dashboard's account page.
func (s *Server) APIUsage(ctx context.Context, u *link.User) (int, error) {
	return s.store.RequestCount(ctx, scopeAPI+":"+strconv.FormatInt(u.ID, 10), rateWindow)
}

// rotateKey replaces the key the request came with. Parallel rotations
// with one key race for it: the store swaps only while the key is still
// the presented one, so one wins and answers the only valid key; the
// others get a 409 and change nothing. A rotation is not replayed: a
// retry with the old key after a lost response is a 401 like any old key,
// since a replay window would let a leaked key, the usual reason to
// rotate, fetch its successor. `admin user rotate-key` recovers.
func (s *Server) rotateKey(w http.ResponseWriter, r *http.Request, u *link.User) error {
	old, err := apiKey(r, false) // the guard accepted it a moment ago
	if err != nil {
		return err
	}
	key, hash := secret.NewAPIKey()
	err = s.store.RotateAPIKey(r.Context(), u.ID, secret.HashAPIKey(old), hash)
	if errors.Is(err, pgstore.ErrKeyRotated) {
		return Conflict("the API key was rotated by a concurrent request; use the key that request returned")
	}
	if err != nil {
		return err
	}
	return OK(w, map[string]any{"api_key": key, "message": "new API key issued; the old key no longer works"})
}

// ValidPassword checks a password: MinPasswordLen characters to
// MaxPasswordBytes bytes and, ignoring case, none of forbidden (the
// account's username and email: the first guesses of anyone trying it).
// Empty forbidden values are skipped.
func ValidPassword(field, pw string, forbidden ...string) error {
	switch {
	case pw == "":
		return BadRequest(field, "required")
	case utf8.RuneCountInString(pw) < MinPasswordLen:
		return BadRequest(field, fmt.Sprintf("must be at least %d characters", MinPasswordLen))
	case len(pw) > MaxPasswordBytes:
		return BadRequest(field, fmt.Sprintf("must be at most %d bytes", MaxPasswordBytes))
	}
	for _, f := range forbidden {
		if f != "" && strings.EqualFold(pw, f) {
			return BadRequest(field, "must not be the username or the email address")
		}
	}
	return nil
}

// ValidEmail checks and normalises an e-mail address (a bare address, no
// display name).
func ValidEmail(raw string) (string, error) {
	e := strings.TrimSpace(raw)
	if e == "" {
		return "", BadRequest("email", "required")
	}
	if len(e) > 254 {
		return "", BadRequest("email", "must be at most 254 characters")
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || a.Name != "" || !strings.Contains(e[strings.LastIndexByte(e, '@')+1:], ".") {
		return "", BadRequest("email", "must be a valid e-mail address such as name@example.com")
	}
	return e, nil
}

// ValidUsername checks a user name: 3–32 letters, digits, '-', '_' or '.'
// (it appears in public campaign list URLs).
func ValidUsername(u string) error {
	if len(u) < 3 || len(u) > 32 {
		return BadRequest("username", "must be 3 to 32 characters")
	}
	for _, c := range u {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return BadRequest("username", "may contain only letters, digits, '-', '_' and '.'")
		}
	}
	return nil
}

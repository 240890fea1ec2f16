package api

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"kurz/shared/config"
	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/secret"
)

// Self-service registration (POST /api/register): the caller has no key
// yet, so this route sits outside the guard and brings its own defences,
// in this order: the KURZ_REGISTRATION mode; a refusal of cross-origin
// browser requests, without which any web page could make its visitors'
// browsers sign up accounts from their own addresses and so spread past
// the per-IP limit; and an hourly per-IP limit, counted after those two
// (they cost nothing) but before any other work, failed attempts
// included, so probing emails for 409 is bounded too.

// registerWindow is the per-IP registration window. rate_limits rows are
// pruned an hour after their window starts, so it must not be longer.
const registerWindow = time.Hour

// registerPlan is the plan of new accounts; they get its rate limit.
const registerPlan = "free"

// Registration is a sign-up: the body of POST /api/register, and what the
// dashboard's sign-up form sends to Register.
type Registration struct {
	Email    string `json:"email"`
	Username string `json:"username"`
	Password string `json:"password"`
	Invite   string `json:"invite"`
}

// registerHandler serves /api/register; methods other than POST get a JSON
// 405.
func (s *Server) registerHandler() http.Handler {
	csrf := http.NewCrossOriginProtection()
	for _, o := range s.cfg.CORSOrigins {
		// "*" lets any page call the API with a key; it does not let any
		// page sign up accounts through its visitors' browsers.
		if o == "*" {
			continue
		}
		if err := csrf.AddTrustedOrigin(o); err != nil {
			s.log.Warn("registration: ignoring CORS origin", "origin", o, "err", err)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, r, s.log, Errorf(http.StatusMethodNotAllowed, "method %s not allowed on %s; use POST", r.Method, r.URL.Path))
			return
		}
		if err := s.register(w, r, csrf); err != nil {
			writeError(w, r, s.log, err)
		}
	})
}

func (s *Server) register(w http.ResponseWriter, r *http.Request, csrf *http.CrossOriginProtection) error {
	if err := s.registrationOpen(); err != nil {
		return err
	}
	if err := csrf.Check(r); err != nil {
		return Errorf(http.StatusForbidden, "registration from a page on another origin is not allowed; use this server's own sign-up page or a non-browser client")
	}
	if !s.countIn(w, r, registerBucket(s.clientIP(r)), s.cfg.RegistrationRateLimit, registerWindow) {
		return nil // countIn wrote the 429 (or 503)
	}
	release, err := s.bodyRoom(r)
	if err != nil {
		return err
	}
	defer release()
	var in Registration
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	u, key, err := s.createAccount(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"error": 0, "id": u.ID, "username": u.Username, "email": u.Email, "api_key": key,
	})
	return nil
}

// Register is the dashboard's sign-up: the mode, the per-IP hourly limit
// (the same bucket as POST /api/register's) and the rules of the API, for
// a client at ip whose request the caller has already checked for
// cross-site forgery. It returns the account and its first API key. A
// refusal is an *Error as the API would answer it (429 with RetryAfter).
func (s *Server) Register(ctx context.Context, ip netip.Addr, in Registration) (*link.User, string, error) {
	if err := s.registrationOpen(); err != nil {
		return nil, "", err
	}
	if limit := s.cfg.RegistrationRateLimit; limit > 0 {
		q, err := s.take(ctx, registerBucket(ip), limit, registerWindow)
		if err != nil {
			return nil, "", err
		}
		if q.over {
			return nil, "", limitError(limit, registerWindow, q.reset)
		}
	}
	return s.createAccount(ctx, in)
}

// registrationOpen refuses sign-ups unless KURZ_REGISTRATION allows them.
func (s *Server) registrationOpen() error {
	if m := s.cfg.Registration; m != config.RegistrationOpen && m != config.RegistrationInvite {
		return Errorf(http.StatusForbidden, "registration is closed on this server: ask its operator for an account")
	}
	return nil
}

// createAccount checks in, hashes the password and stores the account with
// a fresh API key (and, in invite mode, one use of the invite).
func (s *Server) createAccount(ctx context.Context, in Registration) (*link.User, string, error) {
	n, err := validRegistration(in)
	if err != nil {
		return nil, "", err
	}
	var inviteHash []byte
	if s.cfg.Registration == config.RegistrationInvite {
		code := strings.TrimSpace(in.Invite)
		if code == "" {
			return nil, "", BadRequest("invite", "required: this server registers new accounts by invitation only")
		}
		inviteHash = secret.HashInviteCode(code)
	}
	if n.PasswordHash, err = s.HashPassword(ctx, in.Password); err != nil {
		return nil, "", err
	}
	key, keyHash := secret.NewAPIKey()
	n.APIKeyHash = keyHash
	u, err := s.store.RegisterUser(ctx, n, inviteHash)
	if err != nil {
		return nil, "", registerError(err)
	}
	return u, key, nil
}

// validRegistration checks the account fields; the password is checked
// but not yet hashed (the caller hashes it after the cheap checks).
func validRegistration(in Registration) (pgstore.NewUser, error) {
	email, err := ValidEmail(in.Email)
	if err != nil {
		return pgstore.NewUser{}, err
	}
	username := strings.TrimSpace(in.Username)
	if err := validNewUsername(username); err != nil {
		return pgstore.NewUser{}, err
	}
	if err := ValidPassword("password", in.Password, username, email); err != nil {
		return pgstore.NewUser{}, err
	}
	return pgstore.NewUser{Email: email, Username: username, Plan: registerPlan}, nil
}

// RegistrationErrors checks every field of in with the rules Register
// applies and returns all refusals (Register answers the first only), so
// a sign-up form can mark each wrong field at once. The password is not
// hashed.
func RegistrationErrors(in Registration) []error {
	var errs []error
	email, err := ValidEmail(in.Email)
	if err != nil {
		errs = append(errs, err)
		email = strings.TrimSpace(in.Email)
	}
	username := strings.TrimSpace(in.Username)
	if err := validNewUsername(username); err != nil {
		errs = append(errs, err)
	}
	if err := ValidPassword("password", in.Password, username, email); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// validNewUsername is the registration rule [a-z0-9_-]{3,32} and not
// reserved: stricter than ValidUsername (which operators' accounts
// follow), so self-chosen names are lower case, URL-safe and cannot pose
// as the service in public /u/{username}/… URLs. Uniqueness is
// case-insensitive in the database either way.
func validNewUsername(u string) error {
	if len(u) < 3 || len(u) > 32 {
		return BadRequest("username", "must be 3 to 32 characters")
	}
	for _, c := range u {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return BadRequest("username", "may contain only lowercase letters a-z, digits, '-' and '_'")
		}
	}
	if link.IsReservedUsername(u) {
		return BadRequest("username", "is reserved")
	}
	return nil
}

func registerError(err error) error {
	switch {
	case errors.Is(err, pgstore.ErrInviteUnknown):
		return Errorf(http.StatusForbidden, "invite: unknown code; ask the operator for an invitation")
	case errors.Is(err, pgstore.ErrInviteExpired):
		return Errorf(http.StatusForbidden, "invite: the code has expired; ask the operator for a new one")
	case errors.Is(err, pgstore.ErrInviteUsedUp):
		return Errorf(http.StatusForbidden, "invite: the code has been used up; ask the operator for a new one")
	case errors.Is(err, pgstore.ErrEmailTaken):
		return Conflict("email: already used by another account")
	case errors.Is(err, pgstore.ErrUsernameTaken):
		return Conflict("username: already taken")
	}
	return err
}

// registerBucket counts registrations per client address (IPv6 per /64,
// see clientKey).
func registerBucket(ip netip.Addr) string { return "register:" + clientKey(ip) }

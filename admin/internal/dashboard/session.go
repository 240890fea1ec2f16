package dashboard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"time"

	"kurz/shared/link"
	"kurz/shared/secret"
)

// Session policy. A session slides forward while it is used (at most one
// write per extendEvery) and ends after sessionIdle without use, or
// sessionMax after sign-in whatever the use.
const (
	sessionIdle = 7 * 24 * time.Hour
	sessionMax  = 30 * 24 * time.Hour
	extendEvery = time.Hour
)

// Cookie names. Over https the session cookie takes the __Host- prefix,
// which browsers accept only with Secure, Path=/ and no Domain: no
// subdomain or plain-http page can set or shadow it.
const (
	sessionCookie       = "kurz_session"
	secureSessionCookie = "__Host-kurz_session"
	preCookie           = "kurz_pre"
	securePreCookie     = "__Host-kurz_pre"
)

// call is what the pages know about one request.
type call struct {
	user  *link.User
	sid   string // the session id from the cookie; "" = no session
	pre   string // the pre-session id (no session): binds the CSRF token
	nonce string // the CSP nonce of this response
	https bool
}

// begin sets the security headers and loads the request's session; a
// visitor without one gets a pre-session cookie for the CSRF tokens of the
// sign-in and sign-up forms.
func (s *Server) begin(w http.ResponseWriter, r *http.Request) (*call, error) {
	c := &call{nonce: newNonce(), https: s.isHTTPS(r)}
	setPageHeaders(w.Header(), c.nonce)
	if err := s.loadSession(w, r, c); err != nil {
		return c, err
	}
	if c.user == nil {
		c.pre = s.preSession(w, r, c)
	}
	return c, nil
}

// loadSession fills c.user and c.sid from a live session cookie, clearing
// a cookie whose session has ended, and extends the session when due.
func (s *Server) loadSession(w http.ResponseWriter, r *http.Request, c *call) error {
	ck, err := r.Cookie(c.sessionName())
	if err != nil || ck.Value == "" {
		return nil
	}
	sess, err := s.store.SessionByHash(r.Context(), secret.HashToken(ck.Value))
	if errors.Is(err, link.ErrNotFound) {
		s.clearCookie(w, c, c.sessionName())
		return nil
	}
	if err != nil {
		return err
	}
	if sess.User.Expired(time.Now()) {
		return nil // the account expired: no pages, as the API gives no access
	}
	c.user, c.sid = sess.User, ck.Value
	if time.Until(sess.ExpiresAt) < sessionIdle-extendEvery && time.Until(sess.CreatedAt.Add(sessionMax)) > extendEvery {
		exp, err := s.store.ExtendSession(r.Context(), secret.HashToken(c.sid), sessionIdle, sessionMax)
		if err != nil {
			s.log.Warn("extend session", "err", err)
			return nil
		}
		s.setCookie(w, c, c.sessionName(), c.sid, exp)
	}
	return nil
}

// startSession signs the browser in as userID: a fresh session id (never
// one the browser brought, so a planted id is useless) in the cookie. A
// session the browser had ends.
func (s *Server) startSession(w http.ResponseWriter, r *http.Request, c *call, userID int64) error {
	if c.sid != "" {
		if err := s.store.DeleteSession(r.Context(), secret.HashToken(c.sid)); err != nil {
			return err
		}
	}
	sid, hash := secret.NewToken()
	exp, err := s.store.CreateSession(r.Context(), hash, userID, sessionIdle)
	if err != nil {
		return err
	}
	s.setCookie(w, c, c.sessionName(), sid, exp)
	c.sid = sid
	s.maybePrune(r.Context())
	return nil
}

// preSession returns the visitor's pre-session id, setting a new one when
// the request brought none.
func (s *Server) preSession(w http.ResponseWriter, r *http.Request, c *call) string {
	if ck, err := r.Cookie(c.preName()); err == nil && len(ck.Value) >= 20 {
		return ck.Value
	}
	id, _ := secret.NewToken()
	// A session cookie (no expiry): it only binds the forms of this visit.
	http.SetCookie(w, &http.Cookie{Name: c.preName(), Value: id, Path: "/", HttpOnly: true,
		Secure: c.https, SameSite: http.SameSiteLaxMode})
	return id
}

func (c *call) sessionName() string {
	if c.https {
		return secureSessionCookie
	}
	return sessionCookie
}

func (c *call) preName() string {
	if c.https {
		return securePreCookie
	}
	return preCookie
}

// setCookie sets an HttpOnly, SameSite=Lax cookie for the whole site,
// Secure over https, until exp.
func (s *Server) setCookie(w http.ResponseWriter, c *call, name, value string, exp time.Time) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", HttpOnly: true, Secure: c.https,
		SameSite: http.SameSiteLaxMode, Expires: exp, MaxAge: max(int(time.Until(exp).Seconds()), 1)})
}

func (s *Server) clearCookie(w http.ResponseWriter, c *call, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", HttpOnly: true, Secure: c.https,
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
}

// isHTTPS reports whether the browser reached us over https: TLS here, or
// X-Forwarded-Proto from a peer in KURZ_TRUSTED_PROXIES.
func (s *Server) isHTTPS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	peer, err := netip.ParseAddr(host)
	return err == nil && s.proxies.Trusted(peer) && r.Header.Get("X-Forwarded-Proto") == "https"
}

// pruneEvery spaces the deletions of expired sessions and reset tokens
// in one process; they run off the request's path.
const pruneEvery = 10 * time.Minute

func (s *Server) maybePrune(ctx context.Context) {
	now := time.Now().UnixNano()
	last := s.prunedAt.Load()
	if now-last < int64(pruneEvery) || !s.prunedAt.CompareAndSwap(last, now) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if _, err := s.store.PruneSessions(ctx); err != nil {
			s.log.Warn("prune sessions", "err", err)
		}
	}()
}

package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"kurz/edge/internal/catalog"
	"kurz/shared/secret"
	"kurz/shared/visitorpage"
)

// Password-protected links.
//
// A correct password sets cookie kurz_pw_<link id> = "<expiry unix>.<mac>",
// mac = HMAC-SHA256(KURZ_SECRET, "pw" | link id | expiry | password hash).
// Binding the stored hash means a password change (new salt, new hash)
// invalidates every cookie issued for the old one; binding the link id
// and scoping the cookie to the alias's path keep it to that link.
//
// argon2 checks run under a semaphore of PasswordWorkers slots, so a
// burst of attempts queues up instead of taking every core from the
// redirects of other links, and within the edge's argon2 budget. Wrong
// attempts are throttled per client and link and per link (pwlimit.go).

const (
	cookieTTL        = 24 * time.Hour
	maxPasswordBytes = 1024
	semaphoreWait    = 3 * time.Second
)

func cookieName(id int64) string { return "kurz_pw_" + strconv.FormatInt(id, 10) }

func (s *Server) cookieMAC(l *catalog.Link, exp int64) string {
	m := hmac.New(sha256.New, []byte(s.cfg.Secret))
	m.Write([]byte("pw\x00"))
	m.Write(strconv.AppendInt(nil, l.ID, 10))
	m.Write([]byte{0})
	m.Write(strconv.AppendInt(nil, exp, 10))
	m.Write([]byte{0})
	m.Write([]byte(l.PasswordHash))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// unlocked reports whether the request carries a valid cookie for l.
func (s *Server) unlocked(ctx *fasthttp.RequestCtx, l *catalog.Link) bool {
	v := ctx.Request.Header.Cookie(cookieName(l.ID))
	dot := indexByte(v, '.')
	if dot <= 0 {
		return false
	}
	exp, err := strconv.ParseInt(string(v[:dot]), 10, 64)
	if err != nil || exp < requestTime(ctx).Unix() {
		return false
	}
	return hmac.Equal(v[dot+1:], []byte(s.cookieMAC(l, exp)))
}

// passwordForm shows the form, with the throttle message when an attempt
// from this client would be refused now.
func (s *Server) passwordForm(ctx *fasthttp.RequestCtx, l *catalog.Link, retryAfter int) {
	if retryAfter == 0 {
		if wait := s.passwords.throttled(s.clientIP(ctx), l.ID, requestTime(ctx)); wait > 0 {
			retryAfter = retrySeconds(wait)
		}
	}
	s.page(ctx, &visitorpage.PasswordPage{Title: l.MetaTitle, Alias: l.Alias(), RetryAfter: retryAfter})
}

// checkPassword handles the form's POST.
func (s *Server) checkPassword(ctx *fasthttp.RequestCtx, l *catalog.Link) {
	now := requestTime(ctx)
	// The attempt is counted before the check, so a burst of parallel
	// guesses cannot all pass while the count is still 0; a right one is
	// given back.
	ticket, wait, busy := s.passwords.admit(s.clientIP(ctx), l.ID, now)
	if wait > 0 {
		s.page(ctx, &visitorpage.PasswordPage{Title: l.MetaTitle, Alias: l.Alias(), Busy: busy, RetryAfter: retrySeconds(wait)})
		return
	}
	pw := ctx.PostArgs().Peek("password")
	if len(pw) > maxPasswordBytes {
		pw = pw[:maxPasswordBytes]
	}
	ok, busy := s.verify(l.PasswordHash, string(pw))
	if busy {
		s.passwords.unchecked(ticket)
		s.page(ctx, &visitorpage.PasswordPage{Title: l.MetaTitle, Alias: l.Alias(), Busy: true, RetryAfter: 5})
		return
	}
	if !ok {
		s.page(ctx, &visitorpage.PasswordPage{Title: l.MetaTitle, Alias: l.Alias(), Wrong: true})
		return
	}
	s.passwords.refund(ticket)
	exp := now.Add(cookieTTL).Unix()
	c := fasthttp.AcquireCookie()
	defer fasthttp.ReleaseCookie(c)
	c.SetKey(cookieName(l.ID))
	c.SetValue(strconv.FormatInt(exp, 10) + "." + s.cookieMAC(l, exp))
	c.SetPath("/" + l.Alias())
	c.SetHTTPOnly(true)
	c.SetSameSite(fasthttp.CookieSameSiteLaxMode)
	c.SetSecure(s.cookieSecure(ctx, l)) // cookiescheme.go
	c.SetMaxAge(int(cookieTTL / time.Second))
	ctx.Response.Header.SetCookie(c)
	// Post/Redirect/Get: the GET carries the cookie and is the counted visit.
	ctx.Response.SetStatusCode(fasthttp.StatusSeeOther)
	ctx.Response.Header.SetCanonical(strCacheControl, strNoStore)
	loc := "/" + l.Alias()
	if q := ctx.URI().QueryString(); len(q) > 0 {
		loc += "?" + string(appendQuerySafe(nil, q))
	}
	ctx.Response.Header.SetCanonical(strLocation, []byte(loc))
}

// verify runs the argon2 check in a semaphore slot; busy means no slot
// freed up in time.
func (s *Server) verify(hash, pw string) (ok, busy bool) {
	t := time.NewTimer(semaphoreWait)
	defer t.Stop()
	select {
	case s.pwSem <- struct{}{}:
	case <-t.C:
		return false, true
	}
	defer func() { <-s.pwSem }()
	return secret.VerifyPassword(hash, pw), false
}

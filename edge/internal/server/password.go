package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"kurz/edge/internal/linkcache"
	"kurz/edge/internal/pages"
	"kurz/shared/secret"
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
// redirects of other links. Wrong attempts are throttled per (client IP,
// link) by an in-memory limiter: the limit is per edge process, so N edges
// allow up to N times the attempts (documented trade-off: no shared state
// on the redirect path).

const (
	cookieTTL        = 24 * time.Hour
	maxPasswordBytes = 1024
	semaphoreWait    = 3 * time.Second
)

func cookieName(id int64) string { return "kurz_pw_" + strconv.FormatInt(id, 10) }

func (s *Server) cookieMAC(l *linkcache.Link, exp int64) string {
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
func (s *Server) unlocked(ctx *fasthttp.RequestCtx, l *linkcache.Link) bool {
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

func (s *Server) passwordForm(ctx *fasthttp.RequestCtx, l *linkcache.Link, retryAfter int) {
	s.page(ctx, &pages.PasswordPage{Title: l.MetaTitle, Alias: l.Alias(), RetryAfter: retryAfter})
}

// checkPassword handles the form's POST.
func (s *Server) checkPassword(ctx *fasthttp.RequestCtx, l *linkcache.Link) {
	key := limiterKey{ip: limiterAddr(s.clientIP(ctx)), link: l.ID}
	now := requestTime(ctx)
	// The attempt is counted before the check, so a burst of parallel
	// guesses cannot all pass while the count is still 0; a right one is
	// given back.
	if wait := s.pwLimiter.take(key, now); wait > 0 {
		s.page(ctx, &pages.PasswordPage{Title: l.MetaTitle, Alias: l.Alias(), RetryAfter: int(wait/time.Second) + 1})
		return
	}
	pw := ctx.PostArgs().Peek("password")
	if len(pw) > maxPasswordBytes {
		pw = pw[:maxPasswordBytes]
	}
	ok, busy := s.verify(l.PasswordHash, string(pw))
	if busy {
		s.pwLimiter.refund(key, now)
		s.unavailable(ctx)
		return
	}
	if !ok {
		s.page(ctx, &pages.PasswordPage{Title: l.MetaTitle, Alias: l.Alias(), Wrong: true})
		return
	}
	s.pwLimiter.refund(key, now)
	exp := now.Add(cookieTTL).Unix()
	c := fasthttp.AcquireCookie()
	defer fasthttp.ReleaseCookie(c)
	c.SetKey(cookieName(l.ID))
	c.SetValue(strconv.FormatInt(exp, 10) + "." + s.cookieMAC(l, exp))
	c.SetPath("/" + l.Alias())
	c.SetHTTPOnly(true)
	c.SetSameSite(fasthttp.CookieSameSiteLaxMode)
	c.SetSecure(s.secure || ctx.IsTLS())
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

// limiter counts wrong attempts per key in fixed windows. It holds at most
// max keys; when full it first drops expired windows and, if still full,
// refuses further attempts (fail closed: a flood of distinct keys must not
// reopen brute force).
type limiter struct {
	mu     sync.Mutex
	n      int
	window time.Duration
	max    int
	m      map[limiterKey]*attempts
}

type limiterKey struct {
	ip   netip.Addr
	link int64
}

type attempts struct {
	start time.Time
	count int
}

func newLimiter(n int, window time.Duration, max int) *limiter {
	return &limiter{n: n, window: window, max: max, m: make(map[limiterKey]*attempts)}
}

// take counts an attempt of key and returns 0 when it may go ahead, else
// how long key must wait (nothing is counted then).
func (l *limiter) take(key limiterKey, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.m[key]
	if a != nil && now.Sub(a.start) >= l.window {
		delete(l.m, key)
		a = nil
	}
	if a == nil {
		if len(l.m) >= l.max {
			l.prune(now)
			if len(l.m) >= l.max {
				return l.window
			}
		}
		l.m[key] = &attempts{start: now, count: 1}
		return 0
	}
	if a.count >= l.n {
		return a.start.Add(l.window).Sub(now)
	}
	a.count++
	return 0
}

// refund gives back an attempt that was right (or never checked).
func (l *limiter) refund(key limiterKey, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if a := l.m[key]; a != nil && now.Sub(a.start) < l.window {
		if a.count--; a.count <= 0 {
			delete(l.m, key)
		}
	}
}

// limiterAddr is the address attempts are counted by: the client IP, or
// its /64 for IPv6, which one subscriber usually holds whole (counting per
// /128 would give them 2^64 fresh budgets).
func limiterAddr(ip netip.Addr) netip.Addr {
	if ip.Is6() && !ip.Is4In6() {
		p, _ := ip.Prefix(64)
		return p.Addr()
	}
	return ip
}

func (l *limiter) prune(now time.Time) {
	for k, a := range l.m {
		if now.Sub(a.start) >= l.window {
			delete(l.m, k)
		}
	}
}

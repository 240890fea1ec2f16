package api

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"kurz/shared/link"
	"kurz/shared/secret"
)

// Rate-limit scopes: the link API and the price API count each key in
// separate windows with the same limit value.
const (
	scopeAPI   = "api"
	scopePrice = "price"
)

// rateWindow is the spec's window (30 requests per 1 minute).
const rateWindow = time.Minute

// planLimits are requests per minute by plan; a user's own rate_limit
// overrides them (0 = unlimited). Unknown plans get the default.
var planLimits = map[string]int{"free": 30, "pro": 120, "business": 600}

const defaultLimit = 30

// LimitOf returns the user's per-minute API limit; 0 means unlimited
// (the dashboard's account page shows it).
func LimitOf(u *link.User) int {
	if u.RateLimit != nil {
		return *u.RateLimit
	}
	if n, ok := planLimits[u.Plan]; ok {
		return n
	}
	return defaultLimit
}

// guard counts the request against the caller's window, then checks the
// API key. Requests without a valid key are counted per client IP, so key
// guessing is throttled too; every response carries X-RateLimit-* headers.
func (s *Server) guard(scope string, queryKey bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, authErr := apiKey(r, queryKey)
		var u *link.User
		if authErr == nil {
			var err error
			u, err = s.store.UserByKeyHash(r.Context(), secret.HashAPIKey(key))
			switch {
			case errors.Is(err, link.ErrNotFound):
				u, authErr = nil, Errorf(http.StatusUnauthorized, "invalid API key")
			case err != nil:
				s.noCount(w, s.cfg.AnonRateLimit, rateWindow)
				writeError(w, r, s.log, err)
				return
			case u.Expired(s.now()):
				authErr = Errorf(http.StatusUnauthorized, "API key expired: the account expired at %s UTC", link.FormatTimePtr(u.ExpiresAt))
				u = nil
			}
		}
		bucket, limit := "anon:"+clientKey(s.clientIP(r)), s.cfg.AnonRateLimit
		if u != nil {
			bucket, limit = scope+":"+strconv.FormatInt(u.ID, 10), LimitOf(u)
		}
		if !s.count(w, r, bucket, limit) {
			return
		}
		if authErr != nil {
			writeError(w, r, s.log, authErr)
			return
		}
		release, err := s.bodyRoom(r)
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
		defer release()
		next.ServeHTTP(w, r.WithContext(withUser(r.Context(), u)))
	})
}

// count adds the request to bucket and sets the headers; it writes the 429
// (or 503) itself and returns false when the request must stop here.
func (s *Server) count(w http.ResponseWriter, r *http.Request, bucket string, limit int) bool {
	return s.countIn(w, r, bucket, limit, rateWindow)
}

// countIn is count over a window of another length (registration counts
// per hour). Windows that started over maxWindow ago are pruned, so
// window must not exceed it. A bucket this process knows to be over its
// limit is answered without touching the store (ratelimit.go).
func (s *Server) countIn(w http.ResponseWriter, r *http.Request, bucket string, limit int, window time.Duration) bool {
	h := w.Header()
	if limit == 0 {
		h.Set("X-RateLimit-Limit", "unlimited")
		h.Set("X-RateLimit-Remaining", "unlimited")
		h.Set("X-RateLimit-Reset", strconv.FormatInt(s.now().Truncate(window).Add(window).Unix(), 10))
		return true
	}
	q, err := s.take(r.Context(), bucket, limit, window)
	if err != nil {
		s.noCount(w, limit, window)
		writeError(w, r, s.log, err)
		return false
	}
	if q.over {
		s.tooMany(w, r, limit, window, q.reset)
		return false
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(limit-q.n))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(q.reset.Unix(), 10))
	return true
}

// quota is a bucket's state after take counted a request in it.
type quota struct {
	n     int       // requests in the window, this one included
	reset time.Time // end of the window (database clock)
	over  bool      // past the limit: the request must stop
}

// take counts a request in bucket's window (limit > 0). A bucket this
// process knows to be over its limit is answered from memory, without a
// write (ratelimit.go).
func (s *Server) take(ctx context.Context, bucket string, limit int, window time.Duration) (quota, error) {
	// Windows run on the database's real clock, so the memory of an
	// over-limit bucket does too (s.now may be pinned by tests).
	if reset, over := s.limits.overUntil(bucket, time.Now()); over {
		return quota{n: limit + 1, reset: reset, over: true}, nil
	}
	n, reset, err := s.store.CountRequest(ctx, bucket, window)
	if err != nil {
		return quota{}, err
	}
	s.maybePrune(ctx)
	if n > limit {
		s.limits.remember(bucket, reset, window, time.Now())
		return quota{n: n, reset: reset, over: true}, nil
	}
	return quota{n: n, reset: reset}, nil
}

// noCount sets the headers when the counter store is unreachable: nothing
// was counted, so nothing is promised as remaining.
func (s *Server) noCount(w http.ResponseWriter, limit int, window time.Duration) {
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(s.now().Truncate(window).Add(window).Unix(), 10))
}

// windowName names a window in 429 messages.
func windowName(window time.Duration) string {
	switch window {
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	}
	return window.String()
}

// apiKey extracts the key: the Authorization header, or (price API only)
// the key query parameter. The header wins when both are present.
func apiKey(r *http.Request, queryKey bool) (string, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		key, ok := authHeaderKey(h)
		if !ok {
			return "", Errorf(http.StatusUnauthorized, "malformed Authorization header: use 'Authorization: Bearer <API key>'")
		}
		return key, nil
	}
	if queryKey {
		if key := strings.TrimSpace(r.URL.Query().Get("key")); key != "" {
			return key, nil
		}
		return "", Errorf(http.StatusUnauthorized, "missing API key: send 'Authorization: Bearer <API key>' or the key query parameter")
	}
	return "", Errorf(http.StatusUnauthorized, "missing API key: send 'Authorization: Bearer <API key>'")
}

// authHeaderKey reads the key from an Authorization value in the dialects
// existing clients of this API send: "Bearer KEY" (the spec), "Token KEY"
// (older clients and the original service's PHP wrapper) and a bare "KEY";
// schemes are case-insensitive. Anything else (another scheme, extra
// words) is malformed.
func authHeaderKey(h string) (string, bool) {
	fields := strings.Fields(h)
	switch {
	case len(fields) == 1:
		// A scheme word alone ("Bearer ") lost its key on the way.
		return fields[0], !isAuthScheme(fields[0])
	case len(fields) == 2 && (strings.EqualFold(fields[0], "Bearer") || strings.EqualFold(fields[0], "Token")):
		return fields[1], true
	}
	return "", false
}

func isAuthScheme(word string) bool {
	for _, s := range []string{"Bearer", "Token", "Basic", "Digest"} {
		if strings.EqualFold(word, s) {
			return true
		}
	}
	return false
}

func (s *Server) clientIP(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return netip.IPv4Unspecified()
	}
	// Every X-Forwarded-For line, as the edge reads them (clientip.Resolve).
	return s.ips.ResolveStrings(peer, r.Header.Values("X-Forwarded-For"))
}

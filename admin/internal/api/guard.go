package api

import (
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

// limitOf returns the user's per-minute limit; 0 means unlimited.
func limitOf(u *link.User) int {
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
		bucket, limit := "anon:"+s.clientIP(r).String(), s.cfg.AnonRateLimit
		if u != nil {
			bucket, limit = scope+":"+strconv.FormatInt(u.ID, 10), limitOf(u)
		}
		if !s.count(w, r, bucket, limit) {
			return
		}
		if authErr != nil {
			writeError(w, r, s.log, authErr)
			return
		}
		next.ServeHTTP(w, r.WithContext(withUser(r.Context(), u)))
	})
}

// count adds the request to bucket and sets the headers; it writes the 429
// (or 503) itself and returns false when the request must stop here.
func (s *Server) count(w http.ResponseWriter, r *http.Request, bucket string, limit int) bool {
	return s.countIn(w, r, bucket, limit, rateWindow)
}

// countIn is count over a window of another length (registration counts
// per hour). The store prunes windows that started over an hour ago, so
// window must not exceed one hour.
func (s *Server) countIn(w http.ResponseWriter, r *http.Request, bucket string, limit int, window time.Duration) bool {
	h := w.Header()
	if limit == 0 {
		h.Set("X-RateLimit-Limit", "unlimited")
		h.Set("X-RateLimit-Remaining", "unlimited")
		h.Set("X-RateLimit-Reset", strconv.FormatInt(s.now().Truncate(window).Add(window).Unix(), 10))
		return true
	}
	n, reset, err := s.store.CountRequest(r.Context(), bucket, window)
	if err != nil {
		s.noCount(w, limit, window)
		writeError(w, r, s.log, err)
		return false
	}
	remaining := limit - n
	if remaining < 0 {
		remaining = 0
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	if n > limit {
		wait := int(time.Until(reset).Seconds() + 0.999)
		if wait < 1 {
			wait = 1
		}
		h.Set("Retry-After", strconv.Itoa(wait))
		writeError(w, r, s.log, Errorf(http.StatusTooManyRequests,
			"rate limit exceeded: %d requests per %s; retry in %d s", limit, windowName(window), wait))
		return false
	}
	return true
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
	return s.ips.Resolve(peer, []byte(r.Header.Get("X-Forwarded-For")))
}

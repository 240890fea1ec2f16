package api

import (
	"net/http"
	"slices"
	"strings"
)

// CORS lets browser clients (extensions, single-page apps) on the origins
// of KURZ_CORS_ORIGINS call the API. Keys travel in the Authorization
// header, never in cookies, so credentials are not allowed and a "*"
// origin exposes nothing a script could not already send.

const (
	corsMethods = "GET, POST, PUT, DELETE, OPTIONS"
	corsHeaders = "Authorization, Content-Type"
	corsExpose  = "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After"
	corsMaxAge  = "600"
)

// cors answers preflights for allowed origins before the guard (a
// preflight carries no key) and labels the other responses to them.
func (s *Server) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") || len(s.cfg.CORSOrigins) == 0 && r.Header.Get("Origin") == "" {
			next.ServeHTTP(w, r)
			return
		}
		// Answers differ by Origin whenever CORS is on: caches must know,
		// also for requests that sent none.
		h := w.Header()
		h.Add("Vary", "Origin")
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		allowed := s.corsAllowed(origin)
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		if preflight {
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			if !allowed {
				writeError(w, r, s.log, Errorf(http.StatusForbidden, "origin %s is not allowed to call this API (KURZ_CORS_ORIGINS)", origin))
				return
			}
			h.Set("Access-Control-Allow-Origin", s.corsOriginValue(origin))
			h.Set("Access-Control-Allow-Methods", corsMethods)
			h.Set("Access-Control-Allow-Headers", corsHeaders)
			h.Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if allowed {
			h.Set("Access-Control-Allow-Origin", s.corsOriginValue(origin))
			h.Set("Access-Control-Expose-Headers", corsExpose)
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) corsAllowed(origin string) bool {
	list := s.cfg.CORSOrigins
	return slices.Contains(list, "*") || slices.Contains(list, strings.ToLower(origin))
}

// corsOriginValue is "*" for an any-origin setting, else the origin itself.
func (s *Server) corsOriginValue(origin string) string {
	if slices.Contains(s.cfg.CORSOrigins, "*") {
		return "*"
	}
	return origin
}

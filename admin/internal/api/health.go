package api

import (
	"context"
	"net/http"
	"time"
)

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
}

// readyz reports whether every store answers within a short deadline.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	checks := map[string]string{}
	status := http.StatusOK
	for _, c := range s.ready {
		if err := c.Fn(ctx); err != nil {
			s.log.Warn("readiness check failed", "check", c.Name, "err", err)
			checks[c.Name] = "unavailable"
			status = http.StatusServiceUnavailable
			continue
		}
		checks[c.Name] = "ok"
	}
	state := "ready"
	if status != http.StatusOK {
		state = "not ready"
	}
	writeJSON(w, status, map[string]any{"status": state, "checks": checks})
}

package api

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// Request metrics of the admin process: kurz_admin_requests_total{route,
// status} and kurz_admin_request_duration_seconds{route}, where route is
// the pattern the API registered ("/api/links/{id}"), "dashboard" for the
// pages, or "api" for API requests answered before a route was reached
// (rate limit, bad key) or for no route; status is the class (2xx …). The admin is not
// a hot path: series are looked up by name per request.

// routeHolder receives the route of a request from the handler that
// serves it: ServeMux sets Request.Pattern only on the request it passes
// down, which the outermost handler never sees.
type routeHolder struct{ route string }

type routeHolderKey struct{}

// noteRoute records the route serving r for the request metrics.
func noteRoute(r *http.Request, route string) {
	if h, ok := r.Context().Value(routeHolderKey{}).(*routeHolder); ok {
		h.route = route
	}
}

// routed wraps a handler whose requests count under route.
func routed(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		noteRoute(r, route)
		h.ServeHTTP(w, r)
	})
}

// Measured counts and times the requests next serves. HandlerWith and
// PriceHandler are measured already; main wraps the dashboard-only
// listener with it.
func (s *Server) Measured(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		h := &routeHolder{}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), routeHolderKey{}, h)))
		route := h.route
		if route == "" {
			route = "dashboard"
			if p := r.URL.Path; p == "/api" || strings.HasPrefix(p, "/api/") {
				route = "api"
			}
		}
		status := "other"
		if c := sw.status / 100; c >= 1 && c <= 5 {
			status = string(rune('0'+c)) + "xx"
		}
		s.metrics.GetOrCreateCounter(`kurz_admin_requests_total{route="` + route + `",status="` + status + `"}`).Inc()
		s.metrics.GetOrCreatePrometheusHistogramExt(`kurz_admin_request_duration_seconds{route="`+route+`"}`,
			latencyBuckets).UpdateDuration(start)
	})
}

// latencyBuckets: from 1 ms (a cached price) to 10 s (a stats query near
// its timeout).
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status  int
	written bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.written {
		w.status, w.written = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.written = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer
// (flushes of the CSV exports).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

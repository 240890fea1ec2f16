package api

import (
	"cmp"
	"net/http"
	"slices"

	"kurz/shared/obs"
)

// Route is one method and path the admin serves as API, in ServeMux
// pattern syntax ("/api/url/{id}"), which is also OpenAPI's path
// template syntax. The OpenAPI document must list exactly these
// (openapi_routes_test.go).
type Route struct {
	Method string
	Path   string
}

// record adds a route to the table New builds; handle and the keyless
// routes call it, so a route cannot be registered without being listed.
func (s *Server) record(path, method string) {
	s.table = append(s.table, Route{Method: method, Path: path})
}

// Routes lists every API route of the admin listener, sorted by path and
// method: the guarded link and price APIs and the keyless routes (health
// checks, registration, the OpenAPI document). The dashboard's pages are
// not API routes.
func (s *Server) Routes() []Route {
	out := slices.Clone(s.table)
	slices.SortFunc(out, func(a, b Route) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Method, b.Method))
	})
	return out
}

// keylessRoute is a route outside the guard: it needs no API key. pattern
// is what the ServeMux gets; a pattern without a method sends every
// method to h, which answers the others with a JSON 405 itself.
type keylessRoute struct {
	Route
	pattern string
	h       http.Handler
}

// keylessRoutes are the admin listener's routes outside the guard.
func (s *Server) keylessRoutes() []keylessRoute {
	get := func(path string, h http.HandlerFunc) keylessRoute {
		return keylessRoute{Route: Route{http.MethodGet, path}, pattern: "GET " + path, h: h}
	}
	return []keylessRoute{
		get(obs.LivenessPath, s.healthz),
		get(obs.ReadinessPath, s.readyz),
		// no key yet: registration brings its own defences (register.go)
		{Route: Route{http.MethodPost, "/api/register"}, pattern: "/api/register", h: s.registerHandler()},
		{Route: Route{http.MethodGet, openAPIPath}, pattern: openAPIPath, h: s.openAPIHandler()},
	}
}

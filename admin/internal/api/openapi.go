package api

import (
	_ "embed"
	"net/http"
)

// The OpenAPI 3.1 document of the admin's link-management and price API,
// served keyless at GET /api/openapi.json. openapi_test.go validates real
// responses of this server against it; openapi_routes_test.go checks that
// its paths are exactly Routes().

//go:embed openapi.json
var openAPIDoc []byte

const openAPIPath = "/api/openapi.json"

// openAPIHandler serves the document to GET (and HEAD); other methods get
// a JSON 405.
func (s *Server) openAPIHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", http.MethodGet)
			writeError(w, r, s.log, Errorf(http.StatusMethodNotAllowed, "method %s not allowed on %s; use GET", r.Method, r.URL.Path))
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		_, _ = w.Write(openAPIDoc)
	})
}

package api

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"kurz/shared/config"
)

// loadOpenAPI parses and validates the embedded document as OpenAPI 3.1.
func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openAPIDoc)
	if err != nil {
		t.Fatalf("load openapi.json: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI document: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() || doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi.json declares %q, want 3.1.0", doc.OpenAPI)
	}
	return doc
}

// documentedRoutes lists the operations of doc as routes.
func documentedRoutes(doc *openapi3.T) []Route {
	var out []Route
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, Route{Method: method, Path: path})
		}
	}
	return out
}

// routeDiff names every route served but not documented and every
// documented route not served.
func routeDiff(served, documented []Route) []string {
	var diff []string
	for _, r := range served {
		if !slices.Contains(documented, r) {
			diff = append(diff, "served but not in openapi.json: "+r.Method+" "+r.Path)
		}
	}
	for _, r := range documented {
		if !slices.Contains(served, r) {
			diff = append(diff, "in openapi.json but not served: "+r.Method+" "+r.Path)
		}
	}
	slices.Sort(diff)
	return diff
}

func routeServer() *Server {
	return New(Deps{Config: &config.Config{BaseURL: "http://sho.rt", BaseHost: "sho.rt", Secret: "test-secret"}})
}

// TestOpenAPIListsEveryRoute fails when the router serves a method and
// path the document lacks, or the document has one the router does not
// serve. The router's side is Server.Routes(), the table every route
// registration writes (handle, keylessRoutes).
func TestOpenAPIListsEveryRoute(t *testing.T) {
	doc := loadOpenAPI(t)
	srv := routeServer()
	if len(srv.Routes()) < 40 {
		t.Fatalf("Routes() lists only %d routes; the table is not filled", len(srv.Routes()))
	}
	for _, d := range routeDiff(srv.Routes(), documentedRoutes(doc)) {
		t.Error(d)
	}
}

// TestRouteDiff checks that the comparison can fail, both ways.
func TestRouteDiff(t *testing.T) {
	served := []Route{{"GET", "/api/a"}, {"POST", "/api/b"}}
	tests := []struct {
		name       string
		documented []Route
		want       []string
	}{
		{"same", []Route{{"POST", "/api/b"}, {"GET", "/api/a"}}, nil},
		{"route missing from the document", []Route{{"GET", "/api/a"}},
			[]string{"served but not in openapi.json: POST /api/b"}},
		{"method differs", []Route{{"GET", "/api/a"}, {"PUT", "/api/b"}},
			[]string{"in openapi.json but not served: PUT /api/b", "served but not in openapi.json: POST /api/b"}},
		{"path the router lacks", []Route{{"GET", "/api/a"}, {"POST", "/api/b"}, {"GET", "/api/c"}},
			[]string{"in openapi.json but not served: GET /api/c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := routeDiff(served, tt.documented); !slices.Equal(got, tt.want) {
				t.Errorf("routeDiff = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOpenAPIPathsReachTheirHandlers asks the admin's muxes which
// pattern serves each documented path (with sample path values): it must
// be that path's own registration, not a catch-all, so the route table
// cannot list a path the muxes route elsewhere.
func TestOpenAPIPathsReachTheirHandlers(t *testing.T) {
	doc := loadOpenAPI(t)
	srv := routeServer()
	top := srv.adminMux(nil)
	for _, r := range documentedRoutes(doc) {
		req := httptest.NewRequest(r.Method, samplePath(r.Path), nil)
		_, pattern := top.Handler(req)
		switch pattern {
		case "/api/":
			_, pattern = srv.api.Handler(req)
		case "/api/price", "/api/price/":
			_, pattern = srv.price.Handler(req)
		}
		// Keyless routes may carry their method ("GET /healthz").
		pattern = strings.TrimPrefix(pattern, r.Method+" ")
		if pattern != r.Path {
			t.Errorf("%s %s is served by pattern %q, want its own", r.Method, r.Path, pattern)
		}
	}
}

// samplePath fills a path template with values its handler accepts.
func samplePath(template string) string {
	return strings.NewReplacer("{type}", "links", "{id}", "1", "{campaignid}", "1", "{linkid}", "1",
		"{channelid}", "1", "{itemid}", "1").Replace(template)
}

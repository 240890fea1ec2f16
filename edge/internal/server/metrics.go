package server

import (
	"io"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/valyala/fasthttp"

	"kurz/shared/obs"
)

// Request metrics: kurz_edge_requests_total{route,status} and
// kurz_edge_request_duration_seconds{route}. Every series is created at
// start-up in a fixed array indexed by route class and status class, so
// counting a request is two array lookups and atomic adds: no label
// formatting, no map, no lock, no allocation (alloc_test.go serves with
// them on).

// routeClass is what kind of route served a request.
type routeClass uint8

const (
	routeLink     routeClass = iota // /{alias}: the redirect (nearly all traffic)
	routeStats                      // /{alias}+: the public stats page
	routeLinkQR                     // /{alias}/qr…: a link's QR image
	routeQRScan                     // /q/{code}
	routeQRImage                    // /qr/{code}
	routeRotator                    // /r/{slug}
	routeCampaign                   // /u/{username}/{campaign}
	routeRoot                       // /
	routeHealth                     // /healthz, /readyz
	routeNotFound                   // anything else
	numRoutes
)

var routeNames = [numRoutes]string{"link", "stats", "link_qr", "qr_scan", "qr_image", "rotator", "campaign",
	"root", "health", "not_found"}

// Status classes: 1xx … 5xx, and "other" for anything outside 100-599.
var statusNames = [6]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

type requestMetrics struct {
	requests [numRoutes][len(statusNames)]*metrics.Counter
	latency  [numRoutes]*obs.Histogram
}

func newRequestMetrics(set *metrics.Set) *requestMetrics {
	m := &requestMetrics{}
	for r, route := range routeNames {
		for s, status := range statusNames {
			m.requests[r][s] = set.NewCounter(`kurz_edge_requests_total{route="` + route + `",status="` + status + `"}`)
		}
		m.latency[r] = obs.NewHistogram()
	}
	set.RegisterMetricsWriter(func(w io.Writer) {
		for r, route := range routeNames {
			m.latency[r].WritePrometheus(w, "kurz_edge_request_duration_seconds", `route="`+route+`"`)
		}
	})
	return m
}

// done counts one request of route class c that started at start.
func (m *requestMetrics) done(c routeClass, ctx *fasthttp.RequestCtx, start time.Time) {
	status := ctx.Response.StatusCode() / 100
	if status < 1 || status > 5 {
		status = 0
	}
	m.requests[c][status].Inc()
	m.latency[c].Observe(time.Since(start))
}

// measured wraps a router handler of route class c.
func (s *Server) measured(c routeClass, h fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		start := requestTime(ctx)
		h(ctx)
		s.reqs.done(c, ctx, start)
	}
}

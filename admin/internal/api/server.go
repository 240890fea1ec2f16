// Package api is the admin process's HTTP interface: the link management
// API of the spec under /api, the price API at /api/price, and health
// endpoints. Handlers return errors; one function turns them into the
// spec's error body. Every /api request passes the guard (rate limit, then
// API key) before it reaches a handler, except registration, which issues
// keys and has its own limit.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"kurz/admin/internal/price"
	"kurz/admin/internal/safefetch"
	"kurz/admin/internal/stats"
	"kurz/shared/clientip"
	"kurz/shared/config"
	"kurz/shared/link"
	"kurz/shared/obs"
	"kurz/shared/pgstore"
)

// Check is a readiness probe of one dependency.
type Check struct {
	Name string
	Fn   func(ctx context.Context) error
}

// Deps is what the server needs from main.
type Deps struct {
	Store  *pgstore.Store
	Config *config.Config
	Log    *slog.Logger
	Ready  []Check
	// Now is the clock (tests may pin it); nil means time.Now.
	Now func() time.Time
	// Price answers and stores market prices; nil makes the price API 503.
	Price *price.Service
	// Stats reads click stats from ClickHouse; nil reports zero stats.
	Stats *stats.Service
	// Metrics receives the request and rate-limit series (metrics.go);
	// nil: a private set.
	Metrics *metrics.Set
}

// Server holds the handlers' dependencies.
type Server struct {
	store *pgstore.Store
	cfg   *config.Config
	log   *slog.Logger
	ready []Check
	ips   *clientip.Resolver
	now   func() time.Time

	api   *http.ServeMux // link management, scope "api"
	price *http.ServeMux // price API, scope "price"

	prices *price.Service // nil: price endpoints answer 503
	stats  *stats.Service // nil: zero stats (tests of other areas)

	// logoFetch tunes the fetch of QR logo URLs; the zero value is the
	// production policy. Tests set AllowAddr to reach an httptest server.
	logoFetch safefetch.Options
	// frameFetch tunes the header check of frame and overlay destinations
	// (framing.go); zero is the production policy with a 3 s timeout.
	frameFetch safefetch.Options
	// frames bounds and remembers those checks server-wide (framecheck.go).
	frames *frameChecks
	// caps bound memory-heavy work server-wide (workcap.go).
	caps *workCaps
	// limits remembers buckets over their limit and prunes (ratelimit.go).
	limits *rateLimits

	// table lists every route New registered (routetable.go).
	table []Route
	// keyless are the admin listener's routes outside the guard.
	keyless []keylessRoute

	metrics *metrics.Set
	// rejected counts requests refused for a rate limit (429s).
	rejected *metrics.Counter
}

// New builds the server and its routes.
func New(d Deps) *Server {
	s := &Server{
		store: d.Store,
		cfg:   d.Config,
		log:   d.Log,
		ready: d.Ready,
		ips:   clientip.New(d.Config.TrustedProxies),
		now:   d.Now,
		api:   http.NewServeMux(),
		price: http.NewServeMux(),

		frames: newFrameChecks(frameCheckSlots),
		caps:   newWorkCaps(workBudget()),
		limits: newRateLimits(),
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.prices = d.Price
	s.stats = d.Stats
	if s.metrics = d.Metrics; s.metrics == nil {
		s.metrics = metrics.NewSet()
	}
	s.rejected = s.metrics.NewCounter("kurz_admin_ratelimit_rejections_total")
	if s.log == nil {
		s.log = slog.Default()
	}
	s.routes()
	s.keyless = s.keylessRoutes()
	for _, k := range s.keyless {
		s.record(k.Path, k.Method)
	}
	return s
}

// Handler serves everything the admin listener serves.
func (s *Server) Handler() http.Handler { return s.HandlerWith(nil) }

// HandlerWith is Handler with pages (the dashboard) serving every path
// outside /api and the health checks; nil pages: those get a JSON 404.
func (s *Server) HandlerWith(pages http.Handler) http.Handler {
	return s.Measured(s.timeout(s.cors(s.adminMux(pages))))
}

// adminMux routes the admin listener: the keyless routes, the guarded
// link and price APIs, and pages for everything else.
func (s *Server) adminMux(pages http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	for _, k := range s.keyless {
		mux.Handle(k.pattern, routed(k.Path, k.h))
	}
	mux.Handle("/api/price", s.guard(scopePrice, true, s.price))
	mux.Handle("/api/price/", s.guard(scopePrice, true, s.price))
	mux.Handle("/api/", s.guard(scopeAPI, false, s.api))
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, s.log, NotFound("route "+r.URL.Path))
	})
	mux.Handle("/api", notFound)
	if pages == nil {
		pages = notFound
	}
	mux.Handle("/", pages)
	return mux
}

// PriceHandler serves only the price API (the optional KURZ_PRICE_ADDR
// listener).
func (s *Server) PriceHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET "+obs.LivenessPath, routed(obs.LivenessPath, http.HandlerFunc(s.healthz)))
	mux.Handle("GET "+obs.ReadinessPath, routed(obs.ReadinessPath, http.HandlerFunc(s.readyz)))
	mux.Handle("/api/price", s.guard(scopePrice, true, s.price))
	mux.Handle("/api/price/", s.guard(scopePrice, true, s.price))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, s.log, NotFound("route "+r.URL.Path))
	})
	return s.Measured(s.timeout(s.cors(mux)))
}

// requestTimeout bounds every request's store calls.
const requestTimeout = 15 * time.Second

func (s *Server) timeout(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// HandlerFunc is an authenticated handler: the guard has checked the key
// and passes the caller's account.
type HandlerFunc func(w http.ResponseWriter, r *http.Request, u *link.User) error

// Methods maps HTTP methods to handlers of one path.
type Methods map[string]HandlerFunc

// handle registers a path on mux; methods not listed get a JSON 405 with
// an Allow header (ServeMux's own 405 would be plain text).
func (s *Server) handle(mux *http.ServeMux, path string, m Methods) {
	methods := make([]string, 0, len(m))
	for method := range m {
		methods = append(methods, method)
	}
	slices.Sort(methods)
	allow := ""
	for _, method := range methods {
		if allow != "" {
			allow += ", "
		}
		allow += method
		s.record(path, method)
	}
	mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		noteRoute(r, path)
		h, ok := m[r.Method]
		if !ok {
			w.Header().Set("Allow", allow)
			writeError(w, r, s.log, Errorf(http.StatusMethodNotAllowed, "method %s not allowed on %s; use %s", r.Method, r.URL.Path, allow))
			return
		}
		u := userFrom(r.Context())
		if u == nil { // unreachable behind the guard; fail closed anyway
			writeError(w, r, s.log, Errorf(http.StatusUnauthorized, "missing API key"))
			return
		}
		if err := h(w, r, u); err != nil {
			writeError(w, r, s.log, err)
		}
	})
}

type userKey struct{}

func withUser(ctx context.Context, u *link.User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

func userFrom(ctx context.Context) *link.User {
	u, _ := ctx.Value(userKey{}).(*link.User)
	return u
}

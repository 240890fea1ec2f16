// Package server is the edge's HTTP front: it resolves (host, alias) to a
// cached link, applies the link's rules in the order the spec gives them
// and answers with a redirect or a page, handing one click record per
// counted visit to the click pipeline.
//
// Invariants: the redirect never waits on ClickHouse (the hand-off is
// non-blocking); a cache hit on a direct link allocates nothing; nothing
// is logged per request; no *fasthttp.RequestCtx or slice of it outlives
// its handler (the click record copies what it needs).
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"

	"kurz/edge/internal/catalog"
	"kurz/shared/chstore"
	"kurz/shared/click"
	"kurz/shared/clientip"
	"kurz/shared/obs"
	"kurz/shared/visitorpage"
)

// Config wires a Server.
type Config struct {
	Log *slog.Logger
	// Catalog is everything the edge caches of PostgreSQL: links,
	// domains, campaigns, QR codes.
	Catalog *catalog.Catalog
	Pages   *visitorpage.Pages
	// BaseURL is the default short domain's scheme://host (KURZ_BASE_URL).
	BaseURL  string
	Resolver *clientip.Resolver
	// CountryHeader, when set, names a header with the visitor's ISO
	// country code (KURZ_COUNTRY_HEADER); it wins over CountryOf. When
	// Resolver has trusted proxies it is believed only from them.
	CountryHeader string
	// CountryOf looks up an IP's country (GeoIP); nil when none is configured.
	CountryOf func(netip.Addr) [2]byte
	// Push hands a click to the pipeline without blocking; it must copy the
	// hit. nil discards clicks.
	Push func(*click.Hit) bool
	// PipelineReady reports the click pipeline's health for /readyz; nil = ok.
	PipelineReady func() error
	// LinkStats reads the click summary of link id for its public stats
	// page ({shorturl}+); an error wrapping link.ErrUnavailable means
	// ClickHouse cannot be read. nil: the page answers 503.
	LinkStats func(ctx context.Context, id int64) (*chstore.Summary, error)
	// Secret keys the password cookies (KURZ_SECRET).
	Secret string
	// PasswordWorkers bounds concurrent argon2 checks; default GOMAXPROCS/2, at least 1.
	PasswordWorkers int
	// PasswordAttempts wrong passwords are allowed per client IP and link
	// per PasswordWindow; defaults 5 per minute.
	PasswordAttempts int
	PasswordWindow   time.Duration
	// PasswordLinkAttempts wrong passwords are allowed per link per
	// PasswordWindow across all clients; default 30 (pwlimit.go).
	PasswordLinkAttempts int
	// PasswordChecksPerSecond is the edge's argon2 budget; default: a
	// quarter of GOMAXPROCS, measured on the first check.
	PasswordChecksPerSecond float64
	// Metrics receives the request series (metrics.go); nil: a private
	// set, so the series are counted (and their cost measured) anyway.
	Metrics *metrics.Set
}

// Server serves the edge's routes.
type Server struct {
	cfg      Config
	log      *slog.Logger
	cat      *catalog.Catalog
	pages    *visitorpage.Pages
	resolver *clientip.Resolver
	router   *router.Router
	hits     sync.Pool // *click.Hit scratch records: keeps the hand-off allocation-free
	secure   bool      // cookies get Secure: the base URL is https
	agents   agentCache
	previews previewCache
	// countryHeader is CountryHeader as bytes, for the header scan.
	countryHeader []byte
	// countryFromProxies: the country header is believed only from the
	// resolver's trusted proxies (KURZ_TRUSTED_PROXIES is set).
	countryFromProxies bool

	pwSem     chan struct{}
	passwords *pwGuard
	rotations rotations
	qrs       *catalog.QRCodes[*qrEntry]
	qrImages  *imageCache
	qrRender  *renderGate
	stats     *statsCache
	reqs      *requestMetrics
}

// New builds a Server.
func New(cfg Config) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Catalog == nil || cfg.Pages == nil {
		return nil, errors.New("server: Catalog and Pages are required")
	}
	if cfg.Resolver == nil {
		cfg.Resolver = clientip.New(nil)
	}
	if cfg.Secret == "" {
		return nil, errors.New("server: Secret is required")
	}
	if cfg.PasswordWorkers <= 0 {
		cfg.PasswordWorkers = max(runtime.GOMAXPROCS(0)/2, 1)
	}
	if cfg.PasswordAttempts <= 0 {
		cfg.PasswordAttempts = 5
	}
	if cfg.PasswordWindow <= 0 {
		cfg.PasswordWindow = time.Minute
	}
	cfg.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/")
	s := &Server{
		cfg:       cfg,
		log:       cfg.Log,
		cat:       cfg.Catalog,
		pages:     cfg.Pages,
		resolver:  cfg.Resolver,
		secure:    strings.HasPrefix(cfg.BaseURL, "https://"),
		pwSem:     make(chan struct{}, cfg.PasswordWorkers),
		passwords: newPWGuard(cfg, cfg.Log),
	}
	s.hits.New = func() any { return new(click.Hit) }
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.NewSet()
	}
	s.reqs = newRequestMetrics(cfg.Metrics)
	s.countryHeader = []byte(cfg.CountryHeader)
	s.countryFromProxies = cfg.Resolver.HasTrusted()
	if cfg.CountryHeader != "" && !s.countryFromProxies {
		cfg.Log.Warn("the country header is believed from every peer: set KURZ_TRUSTED_PROXIES to the proxies that set it",
			"header", cfg.CountryHeader)
	}
	// QR renders (3-9 ms of CPU each) get at most half the cores, like
	// password checks, so a burst of image requests cannot starve redirects.
	s.qrRender = newRenderGate(max(runtime.GOMAXPROCS(0)/2, 1))
	var err error
	if s.qrs, err = catalog.NewQRCodes(cfg.Catalog, 16<<20, prepareQR, qrCost); err != nil {
		return nil, err
	}
	if s.qrImages, err = newImageCache(64 << 20); err != nil {
		return nil, err
	}
	if s.stats, err = newStatsCache(cfg.LinkStats); err != nil {
		return nil, err
	}
	s.router = s.routes()
	return s, nil
}

// Close releases the server's caches.
func (s *Server) Close() {
	s.qrImages.close()
	s.stats.close()
}

func (s *Server) routes() *router.Router {
	r := router.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = false
	get := func(path string, c routeClass, h fasthttp.RequestHandler) {
		h = s.measured(c, h)
		r.GET(path, h)
		r.HEAD(path, h)
	}
	get(obs.LivenessPath, routeHealth, s.healthz)
	get(obs.ReadinessPath, routeHealth, s.readyz)
	get("/", routeRoot, s.root)
	get("/r/{slug}", routeRotator, s.rotator)
	get("/u/{username}/{campaign}", routeCampaign, s.campaignList)
	get("/q/{code}", routeQRScan, s.qrScan)
	get("/qr/{code}", routeQRImage, s.qrImage)
	// A link's own QR image: {shorturl}/qr[.svg] and {shorturl}/qr/{size}[.svg].
	for _, path := range []string{"/{alias}/qr", "/{alias}/qr.svg", "/{alias}/qr.png", "/{alias}/qr/{size}"} {
		get(path, routeLinkQR, s.linkQR)
	}
	// Aliases normally never reach the router (see Handler); these keep the
	// router complete when called on its own. {alias}+ (the public stats
	// page) arrives here too: '+' is no alias character. aliasRoute counts
	// its requests itself (link, stats or not found).
	r.GET("/{alias}", s.aliasRoute)
	r.HEAD("/{alias}", s.aliasRoute)
	r.POST("/{alias}", s.aliasRoute)
	r.NotFound = s.measured(routeNotFound, s.notFoundRoute)
	return r
}

// Handler is the fasthttp entry point. A single-segment alias path is
// dispatched before the router: it is nearly all of the traffic, and a
// byte scan is cheaper than the router's tree walk and parameter storage.
func (s *Server) Handler(ctx *fasthttp.RequestCtx) {
	if p := ctx.Path(); len(p) > 1 && p[0] == '/' && isAlias(p[1:]) && !isRouteWord(p[1:]) {
		// fasthttp's request start, read once per request already: a
		// clock read of our own was ~0.5% of the edge's CPU.
		start := requestTime(ctx)
		s.serveAlias(ctx, p[1:])
		s.reqs.done(routeLink, ctx, start)
		return
	}
	s.router.Handler(ctx)
}

func (s *Server) aliasRoute(ctx *fasthttp.RequestCtx) {
	start := requestTime(ctx)
	a, _ := ctx.UserValue("alias").(string)
	c := routeLink
	switch n := len(a) - 1; {
	case n > 0 && a[n] == '+' && isAlias([]byte(a[:n])):
		c = routeStats
		s.statsPage(ctx, []byte(a[:n]))
	case !isAlias([]byte(a)):
		c = routeNotFound
		s.notFoundRoute(ctx)
	default:
		s.serveAlias(ctx, []byte(a))
	}
	s.reqs.done(c, ctx, start)
}

// isAlias reports whether b has alias syntax (link.IsAliasSyntax on bytes).
func isAlias(b []byte) bool {
	if len(b) == 0 || len(b) > 64 {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// isRouteWord reports whether a single-segment path is one of the
// router's own routes (reserved words are never aliases).
func isRouteWord(b []byte) bool {
	return string(b) == obs.LivenessPath[1:] || string(b) == obs.ReadinessPath[1:]
}

// NewHTTPServer returns the tuned fasthttp server for s. Serve it on a
// listener wrapped by CoarseDeadlines: the server sets no timeouts itself.
//
// Choices (profile evidence in edge/PERFORMANCE.md): no Server header and
// no default Content-Type (every response sets its own; a 302 needs none),
// Date kept (RFC 9110 asks for it and fasthttp caches it per second).
// ReduceMemoryUsage stays off: it trades CPU for memory on idle
// keep-alive connections, the opposite of what a redirect server wants.
// Read/Write/IdleTimeout are 0 because fasthttp would set up to three
// deadlines per request; CoarseDeadlines refreshes them once a second.
// Header names stay normalised: the rules look headers up by name, and
// normalising was under 1% of a profile. Bodies are tiny (password
// forms), so requests are capped at 64 KiB.
func (s *Server) NewHTTPServer() *fasthttp.Server {
	return &fasthttp.Server{
		Handler:                      s.Handler,
		NoDefaultServerHeader:        true,
		NoDefaultContentType:         true,
		MaxRequestBodySize:           64 << 10,
		DisablePreParseMultipartForm: true,
		CloseOnShutdown:              true,
		Logger:                       fasthttpLogger{s.log},
	}
}

type fasthttpLogger struct{ log *slog.Logger }

func (l fasthttpLogger) Printf(format string, args ...any) {
	l.log.Warn("fasthttp", "msg", fmt.Sprintf(format, args...))
}

// loadCtx is the parent context of cache-miss loads: fasthttp's ctx only
// ends at server shutdown, so the loader applies its own bound.
func loadCtx() context.Context { return context.Background() }

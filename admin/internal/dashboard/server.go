package dashboard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"kurz/admin/internal/api"
	"kurz/admin/internal/dnscheck"
	"kurz/shared/clientip"
	"kurz/shared/config"
	"kurz/shared/pgstore"
	"kurz/shared/secret"
	"kurz/shared/visitorpage"
)

// Deps is what the dashboard needs from main.
type Deps struct {
	// API is the admin API server: the dashboard writes through it.
	API    *api.Server
	Store  *pgstore.Store
	Config *config.Config
	Log    *slog.Logger
}

// Server serves the dashboard's pages.
type Server struct {
	api     *api.Server
	store   *pgstore.Store
	cfg     *config.Config
	log     *slog.Logger
	proxies *clientip.Resolver
	pages   *pages
	assets  *assets
	visitor *visitorpage.Pages // the edge's pages, for previews
	keys    keys
	// dummyHash is verified for sign-ins of unknown accounts, so they take
	// as long as wrong passwords of real ones.
	dummyHash string
	prunedAt  atomic.Int64 // Unix nanoseconds of the last session prune
	// dns answers the domain check; dnsSlots bounds the checks running at
	// once, so a burst of clicks cannot pile up lookups.
	dns      *net.Resolver
	dnsSlots chan struct{}
	dnsGate  checkGate
	// aheadUsed counts the ranked pages whose numbers were read ahead
	// (totalsahead.go), for tests.
	aheadUsed atomic.Int64
}

// New builds the dashboard. Templates and assets are parsed here: a broken
// one fails start-up, not a request.
func New(d Deps) (*Server, error) {
	if d.API == nil || d.Store == nil || d.Config == nil {
		return nil, errors.New("dashboard: API, Store and Config are required")
	}
	s := &Server{
		api: d.API, store: d.Store, cfg: d.Config, log: d.Log,
		proxies: clientip.New(d.Config.TrustedProxies),
		keys:    deriveKeys(d.Config.Secret),
		dns:     dnscheck.NewResolver(d.Config.DNSServer), dnsSlots: make(chan struct{}, dnsChecksAtOnce),
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	var err error
	if s.assets, err = loadAssets(); err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	if s.pages, err = loadPages(s.assets); err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	if s.visitor, err = visitorpage.New(); err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	if s.dummyHash, err = secret.HashPassword("kurz dashboard: no such account"); err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	return s, nil
}

// requestTimeout bounds every request's store calls (the API's bound).
const requestTimeout = 15 * time.Second

// Handler serves every dashboard page and asset.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /assets/{version}/{name}", http.HandlerFunc(s.assets.serve))
	s.route(mux, "GET /{$}", s.home)
	s.route(mux, "GET /login", s.loginPage)
	s.route(mux, "POST /login", s.login)
	s.route(mux, "POST /logout", s.logout)
	s.route(mux, "GET /signup", s.signupPage)
	s.route(mux, "POST /signup", s.signup)
	s.route(mux, "GET /reset/{token}", s.resetPage)
	s.route(mux, "POST /reset/{token}", s.reset)
	s.route(mux, "GET /account", s.signedIn(s.accountPage))
	s.route(mux, "POST /account/email", s.signedIn(s.changeEmail))
	s.route(mux, "POST /account/password", s.signedIn(s.changePassword))
	s.route(mux, "POST /account/key", s.signedIn(s.rotateKey))
	s.route(mux, "GET /links", s.signedIn(s.linksPage))
	s.route(mux, "GET /links/new", s.signedIn(s.newLinkPage))
	s.route(mux, "POST /links/new", s.signedIn(s.createLink))
	s.route(mux, "GET /links/alias", s.aliasCheck)
	s.route(mux, "GET /links/delete", s.signedIn(s.bulkDeletePage))
	s.route(mux, "POST /links/delete", s.signedIn(s.bulkDelete))
	s.route(mux, "GET /qr", s.signedIn(s.qrsPage))
	s.route(mux, "GET /qr/new", s.signedIn(s.newQRPage))
	s.uploadRoute(mux, "POST /qr/new", s.signedIn(s.createQR))
	s.route(mux, "POST /qr/preview", s.signedIn(s.qrPreviewFragment))
	s.route(mux, "GET /qr/{id}/edit", s.signedIn(s.editQRPage))
	s.uploadRoute(mux, "POST /qr/{id}/edit", s.signedIn(s.saveQR))
	s.route(mux, "GET /qr/{id}/stats", s.signedIn(s.qrStatsPage))
	s.route(mux, "GET /qr/{id}/stats.csv", s.signedIn(s.qrStatsCSV))
	s.route(mux, "GET /qr/{id}/delete", s.signedIn(s.deleteQRPage))
	s.route(mux, "POST /qr/{id}/delete", s.signedIn(s.deleteQR))
	s.route(mux, "GET /qr/{id}/{file}", s.signedIn(s.qrImage))
	s.route(mux, "GET /pixels", s.signedIn(s.pixelsPage))
	s.route(mux, "GET /pixels/new", s.signedIn(s.newPixelPage))
	s.route(mux, "POST /pixels/new", s.signedIn(s.createPixel))
	s.route(mux, "GET /pixels/{id}/edit", s.signedIn(s.editPixelPage))
	s.route(mux, "POST /pixels/{id}/edit", s.signedIn(s.savePixel))
	s.route(mux, "GET /pixels/{id}/delete", s.signedIn(s.deletePixelPage))
	s.route(mux, "POST /pixels/{id}/delete", s.signedIn(s.deletePixel))
	s.route(mux, "GET /campaigns", s.signedIn(s.campaignsPage))
	s.route(mux, "GET /campaigns/new", s.signedIn(s.newCampaignPage))
	s.route(mux, "POST /campaigns/new", s.signedIn(s.createCampaign))
	s.route(mux, "GET /campaigns/{id}", s.signedIn(s.campaignPage))
	s.route(mux, "POST /campaigns/{id}/assign", s.signedIn(s.assignLink))
	s.route(mux, "POST /campaigns/{id}/remove", s.signedIn(s.removeLink))
	s.route(mux, "GET /campaigns/{id}/edit", s.signedIn(s.editCampaignPage))
	s.route(mux, "POST /campaigns/{id}/edit", s.signedIn(s.saveCampaign))
	s.route(mux, "GET /campaigns/{id}/delete", s.signedIn(s.deleteCampaignPage))
	s.route(mux, "POST /campaigns/{id}/delete", s.signedIn(s.deleteCampaign))
	s.route(mux, "GET /channels", s.signedIn(s.channelsPage))
	s.route(mux, "GET /channels/new", s.signedIn(s.newChannelPage))
	s.route(mux, "POST /channels/new", s.signedIn(s.createChannel))
	s.route(mux, "GET /channels/{id}", s.signedIn(s.channelPage))
	s.route(mux, "POST /channels/{id}/assign", s.signedIn(s.assignItem))
	s.route(mux, "POST /channels/{id}/remove", s.signedIn(s.removeItem))
	s.route(mux, "GET /channels/{id}/edit", s.signedIn(s.editChannelPage))
	s.route(mux, "POST /channels/{id}/edit", s.signedIn(s.saveChannel))
	s.route(mux, "GET /channels/{id}/delete", s.signedIn(s.deleteChannelPage))
	s.route(mux, "POST /channels/{id}/delete", s.signedIn(s.deleteChannel))
	s.route(mux, "GET /domains", s.signedIn(s.domainsPage))
	s.route(mux, "GET /domains/new", s.signedIn(s.newDomainPage))
	s.route(mux, "POST /domains/new", s.signedIn(s.createDomain))
	s.route(mux, "GET /domains/{id}/edit", s.signedIn(s.editDomainPage))
	s.route(mux, "POST /domains/{id}/edit", s.signedIn(s.saveDomain))
	s.route(mux, "POST /domains/{id}/check", s.signedIn(s.checkDomain))
	s.route(mux, "GET /domains/{id}/delete", s.signedIn(s.deleteDomainPage))
	s.route(mux, "POST /domains/{id}/delete", s.signedIn(s.deleteDomain))
	s.visitorPageRoutes(mux, s.overlayKind())
	s.visitorPageRoutes(mux, s.splashKind())
	mux.HandleFunc("GET "+previewDestinationPath, s.previewDestination)
	s.route(mux, "POST /links/preview", s.signedIn(s.previewFragment))
	s.route(mux, "GET /links/{id}/edit", s.signedIn(s.editLinkPage))
	s.route(mux, "POST /links/{id}/edit", s.signedIn(s.saveLink))
	s.route(mux, "GET /links/{id}/delete", s.signedIn(s.deleteLinkPage))
	s.route(mux, "POST /links/{id}/delete", s.signedIn(s.deleteLink))
	s.route(mux, "GET /links/{id}/stats", s.signedIn(s.statsPage))
	s.route(mux, "GET /links/{id}/stats.csv", s.signedIn(s.statsCSV))
	s.route(mux, "/", func(w http.ResponseWriter, r *http.Request, c *call) error {
		return errNotFound
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
		defer cancel()
		mux.ServeHTTP(w, r.WithContext(ctx))
	})
}

// handlerFunc is a page handler: c carries the request's session, CSRF
// token and nonce. A returned error becomes an error page (errors.go).
type handlerFunc func(w http.ResponseWriter, r *http.Request, c *call) error

// route registers a page: security headers, the session, and for every
// state-changing method the cross-origin and CSRF checks, before h.
func (s *Server) route(mux *http.ServeMux, pattern string, h handlerFunc) {
	s.handle(mux, pattern, h, false)
}

// uploadRoute is route for a form that may carry a file
// (multipart/form-data, maxUploadBytes); every other route refuses a
// multipart body.
func (s *Server) uploadRoute(mux *http.ServeMux, pattern string, h handlerFunc) {
	s.handle(mux, pattern, h, true)
}

func (s *Server) handle(mux *http.ServeMux, pattern string, h handlerFunc, upload bool) {
	mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		c, err := s.begin(w, r)
		if err == nil && !safeMethod(r.Method) {
			var release func()
			release, err = s.checkCSRF(w, r, c, upload)
			defer release()
		}
		if err == nil {
			err = h(w, r, c)
		}
		if err != nil {
			s.fail(w, r, c, err)
		}
	})
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// signedIn sends visitors without a session to the sign-in page (back
// here afterwards, for a GET).
func (s *Server) signedIn(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		if c.user == nil {
			target := "/login"
			if r.Method == http.MethodGet {
				target += "?next=" + urlQueryEscape(r.URL.RequestURI())
			}
			http.Redirect(w, r, target, http.StatusSeeOther)
			return nil
		}
		return h(w, r, c)
	}
}

// home is "/": the home page (home.go) for a signed-in user, else the
// sign-in page.
func (s *Server) home(w http.ResponseWriter, r *http.Request, c *call) error {
	if c.user == nil {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return nil
	}
	return s.homePage(w, r, c)
}

package api

import "net/http"

// routes registers every endpoint. Each resource keeps its handlers in its
// own file; this table is the one place that shows the whole API.
func (s *Server) routes() {
	s.accountRoutes()
	s.domainRoutes()   // domains.go
	s.overlayRoutes()  // overlays.go
	s.splashRoutes()   // splash.go
	s.campaignRoutes() // campaigns.go
	s.channelRoutes()  // channels.go
	s.linkRoutes()     // links.go
	s.statsRoutes()    // stats.go
	s.pixelRoutes()    // pixels.go
	s.qrRoutes()       // qr.go
	s.priceRoutes()    // price.go
	s.api.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, s.log, NotFound("route "+r.URL.Path))
	})
	s.price.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, s.log, NotFound("route "+r.URL.Path))
	})
}

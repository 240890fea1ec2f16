package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"runtime/debug"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"kurz/edge/internal/catalog"
	"kurz/edge/internal/clicks"
	"kurz/edge/internal/listen"
	"kurz/edge/internal/server"
	"kurz/shared/chstore"
	"kurz/shared/click"
	"kurz/shared/clientip"
	"kurz/shared/config"
	"kurz/shared/geoip"
	"kurz/shared/obs"
	"kurz/shared/pgstore"
	"kurz/shared/visitorpage"
)

// serve runs the edge until ctx ends: start in dependency order, stop in
// reverse, logging how long each phase took.
func serve(ctx context.Context, cfg *config.Config, log *slog.Logger) error {
	start := time.Now()
	if err := cfg.CheckSecret(); err != nil {
		return err
	}
	if cfg.Secret == config.DevSecret {
		log.Warn("KURZ_SECRET is the development default (KURZ_DEV=1): password cookies are forgeable")
	}
	if cfg.PprofAddr != "" {
		stopPprof, err := startPprof(cfg.PprofAddr, log)
		if err != nil {
			return err
		}
		defer stopPprof()
	}
	// Errors that can repeat per request or per batch go through a
	// throttled logger: one line per message and interval.
	quiet := obs.Throttled(log, obs.LogEvery)
	set := metrics.NewSet()
	store, err := pgstore.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	// The replica may be down at start: its probe routes every load to
	// the primary until it answers (catalog/reads.go).
	var replica *pgstore.Store // nil: the primary takes every read
	if cfg.DatabaseReadURL != "" {
		if replica, err = pgstore.Connect(ctx, cfg.DatabaseReadURL); err != nil {
			return fmt.Errorf("read replica: %w", err)
		}
		defer replica.Close()
	}

	var countryOf func(netip.Addr) [2]byte
	if cfg.GeoIPDB != "" {
		db, err := geoip.Open(cfg.GeoIPDB)
		if err != nil {
			return err
		}
		defer db.Close()
		countryOf = db.Country
	}

	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	chConn, down, err := chstore.DialCluster(pctx, cfg.ClickHouseURL,
		chstore.Cluster{Name: cfg.ClickHouseCluster, Replicated: cfg.ClickHouseReplicated})
	cancel()
	if err != nil {
		return err
	}
	if down != nil {
		log.Warn("clickhouse unreachable at start; clicks will spool", "err", down)
	}
	defer chConn.Close()
	enr, err := click.NewEnricher(click.EnricherConfig{Secret: []byte(cfg.Secret), CountryOf: countryOf})
	if err != nil {
		return err
	}
	pipe, err := clicks.New(clicks.Config{
		Conn: chConn, Enricher: enr, SpoolDir: cfg.SpoolDir, SpoolMaxBytes: cfg.SpoolMaxBytes,
		FlushInterval: cfg.ClickFlushEvery, Logger: quiet,
	})
	if err != nil {
		return err
	}
	pipeClosed := false
	defer func() {
		if !pipeClosed {
			pipe.Close(context.Background()) //nolint:errcheck // error path only
		}
	}()

	registerClicks(set, pipe)

	catCfg := catalog.Config{Log: quiet, BaseHost: cfg.BaseHost, MaxBytes: cfg.CacheMaxBytes}
	if replica != nil {
		catCfg.Replica = replica
	}
	cat, err := catalog.New(store, catCfg)
	if err != nil {
		return err
	}
	defer cat.Close()
	if err := cat.ReloadDomains(ctx); err != nil {
		return err
	}
	pg, err := visitorpage.New()
	if err != nil {
		return err
	}
	srv, err := server.New(server.Config{
		Log: quiet, Catalog: cat, Pages: pg, Metrics: set,
		BaseURL: cfg.BaseURL, Resolver: clientip.New(cfg.TrustedProxies),
		CountryHeader: cfg.CountryHeader, CountryOf: countryOf,
		Push:          pipe.TryPush,
		PipelineReady: func() error { return pipelineReady(pipe.Stats(), cfg.SpoolMaxBytes) },
		Secret:        cfg.Secret,
		// The public stats pages read through the pipeline's connection:
		// the same lazily connecting client, so the edge starts and
		// serves redirects while ClickHouse is down (the pages say 503).
		LinkStats: func(ctx context.Context, id int64) (*chstore.Summary, error) {
			return chstore.ReadSummary(ctx, chConn, click.KindLink, id)
		},
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	registerCatalog(set, cat) // after server.New: its QR cache is in the catalog

	lctx, stopListener := context.WithCancel(context.WithoutCancel(ctx))
	listener := listen.New(store, cat, quiet)
	registerListener(set, listener, store)
	listenerDone := make(chan struct{})
	go func() {
		defer close(listenerDone)
		listener.Run(lctx) //nolint:errcheck // returns ctx's error
	}()
	warmDone := make(chan struct{})
	if cfg.WarmLinks > 0 {
		cat.MarkWarming() // before the port opens: /readyz says "warming" until done
		go func() {
			defer close(warmDone)
			warm(lctx, cat, listener, int(cfg.WarmLinks), log)
		}()
	} else {
		close(warmDone)
	}

	// The metrics listener stops last (deferred): the drain below can be
	// watched. Failing to open it is logged, not fatal: redirects matter
	// more than their counters (two edges on one host clash on the default).
	ms, err := obs.ServeMetrics(cfg.EdgeMetricsAddr, set, log)
	if err != nil {
		log.Error("metrics listener not started", "err", err)
	} else if ms != nil {
		log.Info("metrics serving", "addr", ms.Addr())
		defer stopMetrics(ms, log)
	}

	ln, err := net.Listen("tcp", cfg.EdgeAddr)
	if err != nil {
		stopListener()
		<-listenerDone
		return fmt.Errorf("listen %s: %w", cfg.EdgeAddr, err)
	}
	hs := srv.NewHTTPServer()
	serveErr := make(chan error, 1)
	go func() {
		serveErr <- hs.Serve(server.CoarseDeadlines(ln, server.ConnReadTimeout, server.ConnWriteTimeout))
	}()
	log.Info("edge serving", "addr", ln.Addr().String(), "base_url", cfg.BaseURL,
		"domains", cat.DomainCount(), "startup", time.Since(start))

	select {
	case <-ctx.Done():
	case err = <-serveErr:
		log.Error("http server stopped", "err", err)
	}

	// Shutdown mirrors start-up: stop taking requests, stop the listener,
	// drain the clicks, then close the stores (deferred).
	phase := time.Now()
	sctx, cancel := context.WithTimeout(context.Background(), config.EdgeHTTPShutdown)
	if e := hs.ShutdownWithContext(sctx); e != nil {
		log.Warn("http shutdown", "err", e)
	}
	cancel()
	log.Info("shutdown: http server stopped", "took", time.Since(phase))

	phase = time.Now()
	stopListener()
	<-listenerDone
	<-warmDone
	log.Info("shutdown: change listener stopped", "took", time.Since(phase))

	phase = time.Now()
	cctx, cancel := context.WithTimeout(context.Background(), config.EdgeClickDrain)
	e := pipe.Close(cctx)
	cancel()
	pipeClosed = true
	st := pipe.Stats()
	log.Info("shutdown: click pipeline drained", "took", time.Since(phase), "err", e,
		"inserted", st.Inserted, "spooled", st.Spooled, "dropped", st.Dropped)
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// stopMetrics shuts the metrics listener down, letting a scrape finish.
func stopMetrics(ms *obs.MetricsServer, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := ms.Shutdown(ctx); err != nil {
		log.Warn("shutdown: metrics listener", "err", err)
	}
}

// pipelineReady fails when clicks are being lost or about to be: the
// spool is nearly full while ClickHouse is down.
func pipelineReady(st clicks.Stats, maxSpool int64) error {
	if st.ClickHouseDown && maxSpool > 0 && st.SpoolBytes >= maxSpool/10*9 {
		return errors.New("clickhouse down and click spool nearly full")
	}
	return nil
}

// warmGCPercent is GOGC during the warm-up. The warm-up's garbage (decoded
// rows) and the links it keeps are allocated side by side; with GOGC=100
// the heap doubled before each collection, and the spans that grew then
// stayed pinned by a few live objects each: RSS after a 1M-link warm-up
// was 600-690 MB for a 515 MB live heap. Collecting at 25% growth reuses
// freed slots sooner (edge/PERFORMANCE.md, Memory).
const warmGCPercent = 25

// warm bulk-loads the link cache once the change listener has connected
// and resynced, so the warm-up's snapshot is covered by notifications
// (see catalog.Catalog.Warm). If the listener is not up within a few
// seconds, the warm-up runs anyway: the listener's first resync clears
// the cache, which makes the warm-up start over.
func warm(ctx context.Context, cat *catalog.Catalog, l *listen.Listener, limit int, log *slog.Logger) {
	deadline := time.Now().Add(5 * time.Second)
	for !l.Up() && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	gcPercent := debug.SetGCPercent(warmGCPercent)
	st, err := cat.Warm(ctx, limit)
	debug.SetGCPercent(gcPercent)
	if err != nil {
		log.Warn("link cache warm-up incomplete; links load on first visit", "err", err,
			"links", st.Links, "took", st.Took)
		return
	}
	// The warm-up's garbage (decoded rows, JSON, pgx buffers) is about as
	// large as the cache itself; without this the heap keeps that
	// headroom as RSS until the scavenger gets to it.
	debug.FreeOSMemory()
	log.Info("link cache warm", "links", st.Links, "skipped", st.Skipped, "bytes", st.Bytes, "took", st.Took)
}

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"kurz/admin/internal/api"
	"kurz/admin/internal/dashboard"
	"kurz/admin/internal/price"
	"kurz/admin/internal/stats"
	"kurz/shared/chstore"
	"kurz/shared/config"
	"kurz/shared/obs"
	"kurz/shared/pgstore"
)

// serve runs the admin listener (API and dashboard; and the price-only and
// dashboard-only listeners when KURZ_PRICE_ADDR and KURZ_DASHBOARD_ADDR are
// set) until ctx is cancelled, then shuts down in the reverse order of
// start-up.
func serve(ctx context.Context, cfg *config.Config, log *slog.Logger) error {
	start := time.Now()
	if err := cfg.CheckSecret(); err != nil {
		return err
	}
	if cfg.Secret == config.DevSecret {
		log.Warn("KURZ_SECRET is the development default (KURZ_DEV=1); set it in production")
	}
	// Errors that can repeat per request go through a throttled logger:
	// one line per message and interval.
	quiet := obs.Throttled(log, obs.LogEvery)
	set := metrics.NewSet()
	st, err := pgstore.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer st.Close()
	registerStore(set, st)
	ch, err := chstore.OpenCluster(ctx, cfg.ClickHouseURL, clickHouseCluster(cfg))
	if err != nil {
		return err
	}
	defer ch.Close()
	prices, err := price.NewService(st, ch, price.Options{StaleAfter: cfg.PriceStaleAfter, Log: log})
	if err != nil {
		return err
	}
	defer prices.Close()
	poller, stopPoller, err := startPricePoller(ctx, cfg, prices, log)
	if err != nil {
		return err
	}
	defer stopPoller()
	registerPrices(set, prices, poller)

	srv := api.New(api.Deps{
		Store:   st,
		Config:  cfg,
		Log:     quiet,
		Metrics: set,
		Ready: []api.Check{
			{Name: "postgres", Fn: st.Ping},
			{Name: "clickhouse", Fn: ch.Ping},
		},
		Price: prices,
		Stats: stats.New(ch),
	})
	dash, err := dashboard.New(dashboard.Deps{API: srv, Store: st, Config: cfg, Log: quiet})
	if err != nil {
		return err
	}
	// The dashboard answers every path of the admin listener outside /api
	// and the health checks; KURZ_DASHBOARD_ADDR serves it alone.
	servers := []*http.Server{newHTTPServer(cfg.AdminAddr, srv.HandlerWith(dash.Handler()), log)}
	if cfg.PriceAddr != "" {
		servers = append(servers, newHTTPServer(cfg.PriceAddr, srv.PriceHandler(), log))
	}
	if cfg.DashboardAddr != "" {
		servers = append(servers, newHTTPServer(cfg.DashboardAddr, srv.Measured(dash.Handler()), log))
	}
	errc := make(chan error, len(servers))
	for _, hs := range servers {
		ln, err := net.Listen("tcp", hs.Addr)
		if err != nil {
			return fmt.Errorf("listen %s: %w", hs.Addr, err)
		}
		log.Info("listening", "addr", ln.Addr().String())
		go func() { errc <- hs.Serve(ln) }()
	}
	// Failing to open the metrics listener is logged, not fatal (two
	// admins on one host clash on the default port).
	ms, err := obs.ServeMetrics(cfg.AdminMetricsAddr, set, log)
	if err != nil {
		log.Error("metrics listener not started", "err", err)
	} else if ms != nil {
		log.Info("metrics serving", "addr", ms.Addr())
	}
	log.Info("admin ready", "took", time.Since(start).String())

	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			log.Error("listener failed", "err", err)
		}
	}
	stopStart := time.Now()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), config.AdminStopTimeout)
	defer cancel()
	for _, hs := range servers {
		if err := hs.Shutdown(shutdownCtx); err != nil {
			log.Warn("shutdown", "addr", hs.Addr, "err", err)
		}
	}
	if err := ms.Shutdown(shutdownCtx); err != nil {
		log.Warn("shutdown", "addr", ms.Addr(), "err", err)
	}
	log.Info("admin stopped", "took", time.Since(stopStart).String())
	return nil
}

func newHTTPServer(addr string, h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// startPricePoller starts the upstream price poller when KURZ_PRICE_POLL_URL
// is set; the returned stop function cancels it and waits for its round to
// end. A bad poller configuration fails start-up rather than being ignored.
// The poller is nil when none runs.
func startPricePoller(ctx context.Context, cfg *config.Config, svc *price.Service, log *slog.Logger) (
	p *price.Poller, stop func(), err error) {
	if cfg.PricePollURL == "" {
		return nil, func() {}, nil
	}
	prov, err := price.NewHTTPProvider(cfg.PricePollURL, price.Fields{
		Price: cfg.PricePollPriceField, Currency: cfg.PricePollCurrencyField, Time: cfg.PricePollTimeField,
	}, nil)
	if err != nil {
		return nil, nil, err
	}
	sink := func(ctx context.Context, ticks []pgstore.Quote) error {
		_, err := svc.Update(ctx, ticks, price.SourcePoll)
		return err
	}
	p, err = price.NewPoller(prov, sink, price.PollConfig{
		Symbols: cfg.PricePollSymbols, Interval: cfg.PricePollInterval, Timeout: cfg.PricePollTimeout,
	}, obs.Throttled(log, obs.LogEvery))
	if err != nil {
		return nil, nil, err
	}
	pctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(pctx)
	}()
	return p, func() { cancel(); <-done }, nil
}

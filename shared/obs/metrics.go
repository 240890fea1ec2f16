package obs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/VictoriaMetrics/metrics"
)

// MetricsServer serves GET /metrics in the Prometheus text format on a
// listener of its own (KURZ_EDGE_METRICS_ADDR, KURZ_ADMIN_METRICS_ADDR),
// never on a public one: internals are not for visitors, and an alias may
// be called "metrics". It writes the process's set and the Go runtime and
// process series (go_*, process_*).
type MetricsServer struct {
	hs *http.Server
	ln net.Listener
}

// ServeMetrics starts serving set on addr. An empty addr means off: it
// returns nil, nil (a nil *MetricsServer's methods do nothing).
func ServeMetrics(addr string, set *metrics.Set, log *slog.Logger) (*MetricsServer, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listen %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", MetricsHandler(set))
	m := &MetricsServer{ln: ln, hs: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second,
		WriteTimeout: 30 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}}
	go func() {
		if err := m.hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("metrics server stopped", "err", err)
		}
	}()
	return m, nil
}

// MetricsHandler writes set and the runtime series.
func MetricsHandler(set *metrics.Set) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		WriteMetrics(w, set)
	})
}

// WriteMetrics writes set, then the Go runtime and process series.
func WriteMetrics(w io.Writer, set *metrics.Set) {
	set.WritePrometheus(w)
	metrics.WriteProcessMetrics(w)
}

// Addr is the address the server listens on ("" when off).
func (m *MetricsServer) Addr() string {
	if m == nil {
		return ""
	}
	return m.ln.Addr().String()
}

// Shutdown stops the server, letting a scrape in progress finish while
// ctx allows.
func (m *MetricsServer) Shutdown(ctx context.Context) error {
	if m == nil {
		return nil
	}
	if err := m.hs.Shutdown(ctx); err != nil {
		return fmt.Errorf("metrics shutdown: %w", err)
	}
	return nil
}

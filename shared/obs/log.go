// Package obs holds what both processes use to be observable: structured
// logging setup, throttled loggers for errors that repeat, the /metrics
// listener with its scrape-time writers and lock-free histogram, the
// shutdown signal context, the health endpoints' paths and the probe of
// the container images, and the build information `--version` prints.
package obs

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// NewLogger returns a JSON logger on stderr at the given level name.
func NewLogger(level string) *slog.Logger {
	var l slog.Level
	switch strings.ToLower(level) {
	case "debug":
		l = slog.LevelDebug
	case "warn", "warning":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// SignalContext is cancelled on SIGINT or SIGTERM.
func SignalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"kurz/admin/internal/dashboard"
	"kurz/shared/config"
	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/secret"
)

// Reset links live an hour by default: long enough to pass the link on,
// short enough that a forgotten one is soon worthless.
const (
	defaultResetValid = time.Hour
	maxResetValid     = 72 * time.Hour
)

// userResetPassword prints a one-time link to the dashboard's page that
// sets a new password for the account with --email (no mail server is
// assumed: the operator passes the link on). Only the token's hash is
// stored; using the link ends every session of the account.
func userResetPassword(ctx context.Context, cfg *config.Config, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("user reset-password", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "e-mail address of the account (required)")
	base := fs.String("url", "", "the dashboard's public URL (default: KURZ_DASHBOARD_URL, else derived from the listen address)")
	valid := fs.Duration("valid", defaultResetValid, "how long the link works (at most 72h)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	e := strings.TrimSpace(*email)
	if e == "" || fs.NArg() > 0 {
		fmt.Fprint(stderr, "usage: admin user reset-password --email E [--url https://app.example.com] [--valid 1h]\n")
		return 2
	}
	if *valid <= 0 || *valid > maxResetValid {
		fmt.Fprintf(stderr, "user reset-password: --valid must be between 1s and %s\n", maxResetValid)
		return 2
	}
	dashURL := strings.TrimSuffix(strings.TrimSpace(*base), "/")
	if dashURL == "" {
		dashURL = dashboardURL(cfg)
	}
	token, hash := secret.NewToken()
	return withStore(ctx, cfg, "user reset-password", stdout, stderr, func(ctx context.Context, st *pgstore.Store) (any, error) {
		u, exp, err := st.CreatePasswordReset(ctx, e, hash, *valid)
		if errors.Is(err, link.ErrNotFound) {
			return nil, fmt.Errorf("no account with email %q", e)
		}
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": u.ID, "username": u.Username, "email": u.Email,
			"reset_url": dashURL + dashboard.ResetPath(token), "expires": link.FormatTime(exp)}, nil
	})
}

// dashboardURL is where people reach the dashboard: KURZ_DASHBOARD_URL,
// else http on the dashboard's (or the admin's) listen address, with
// localhost for an address that listens everywhere.
func dashboardURL(cfg *config.Config) string {
	if cfg.DashboardURL != "" {
		return cfg.DashboardURL
	}
	addr := cfg.AdminAddr
	if cfg.DashboardAddr != "" {
		addr = cfg.DashboardAddr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

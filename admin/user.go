package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"kurz/admin/internal/api"
	"kurz/shared/config"
	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/secret"
)

// userCreate creates an account and prints {"id","username","email","api_key"}.
// The key is shown only here; the database keeps its hash.
func userCreate(ctx context.Context, cfg *config.Config, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("user create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "e-mail address (required)")
	username := fs.String("username", "", "user name (required)")
	password := fs.String("password", "", "account password (optional, at least 8 characters)")
	plan := fs.String("plan", "free", "plan name (free, pro, business, …)")
	rate := fs.Int("rate-limit", -1, "requests per minute; 0 = unlimited; default: the plan's")
	expires := fs.String("expires", "", "expiry 'YYYY-MM-DD HH:MM:SS' or YYYY-MM-DD (end of that day), UTC; default: never")
	operator := fs.Bool("admin", false, "give the key the operator role (e.g. pushing prices)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	n, err := newUser(*email, *username, *password, *plan, *rate, *expires, *operator)
	if err != nil {
		fmt.Fprintf(stderr, "user create: %v\n", err)
		return 2
	}
	key, hash := secret.NewAPIKey()
	n.APIKeyHash = hash
	return withStore(ctx, cfg, "user create", stdout, stderr, func(ctx context.Context, st *pgstore.Store) (any, error) {
		u, err := st.CreateUser(ctx, n)
		if errors.Is(err, link.ErrConflict) {
			return nil, errors.New("email or username already taken")
		}
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": u.ID, "username": u.Username, "email": u.Email, "api_key": key}, nil
	})
}

func newUser(email, username, password, plan string, rate int, expires string, operator bool) (pgstore.NewUser, error) {
	var n pgstore.NewUser
	e, err := api.ValidEmail(email)
	if err != nil {
		return n, plainErr(err)
	}
	username = strings.TrimSpace(username)
	if err := api.ValidUsername(username); err != nil {
		return n, plainErr(err)
	}
	n.Email, n.Username, n.Plan, n.IsOperator = e, username, strings.TrimSpace(plan), operator
	if n.Plan == "" {
		return n, errors.New("plan: must not be empty")
	}
	if password != "" {
		if err := api.ValidPassword("password", password, username, e); err != nil {
			return n, plainErr(err)
		}
		if n.PasswordHash, err = secret.HashPassword(password); err != nil {
			return n, err
		}
	}
	if rate < -1 {
		return n, errors.New("rate-limit: must be 0 (unlimited) or more")
	}
	if rate >= 0 {
		n.RateLimit = &rate
	}
	if expires != "" {
		t, err := link.ParseTime(expires)
		if err != nil {
			return n, fmt.Errorf("expires: want 'YYYY-MM-DD HH:MM:SS' or YYYY-MM-DD, got %q", expires)
		}
		n.ExpiresAt = &t
	}
	return n, nil
}

// plainErr turns an API validation error into its message ("email: …")
// for the command line, without the HTTP status.
func plainErr(err error) error {
	var apiErr *api.Error
	if errors.As(err, &apiErr) {
		return errors.New(apiErr.Message)
	}
	return err
}

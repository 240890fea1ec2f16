package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"kurz/shared/config"
	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/secret"
)

// userRotateKey gives the account with --email a fresh API key and prints
// {"id","username","email","api_key"} like user create: the way back in
// for an operator (or make run's demo user) whose key was rotated away or
// lost. The old key stops working at once.
func userRotateKey(ctx context.Context, cfg *config.Config, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("user rotate-key", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "e-mail address of the account (required)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	e := strings.TrimSpace(*email)
	if e == "" || fs.NArg() > 0 {
		fmt.Fprint(stderr, "usage: admin user rotate-key --email E\n")
		return 2
	}
	key, hash := secret.NewAPIKey()
	return withStore(ctx, cfg, "user rotate-key", stdout, stderr, func(ctx context.Context, st *pgstore.Store) (any, error) {
		u, err := st.RotateKeyByEmail(ctx, e, hash)
		if errors.Is(err, link.ErrNotFound) {
			return nil, fmt.Errorf("no account with email %q", e)
		}
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": u.ID, "username": u.Username, "email": u.Email, "api_key": key}, nil
	})
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"kurz/shared/config"
	"kurz/shared/pgstore"
)

// storeCmdTimeout bounds an operator command's whole database work, so a
// stuck server ends the command instead of hanging the shell.
const storeCmdTimeout = 30 * time.Second

// withStore runs fn on a store opened from cfg and prints its result as
// one JSON line on stdout (exit 0). An error from opening the store or
// from fn is printed as "cmd: err" on stderr (exit 1), so fn words its
// own refusals ("no account with email …").
func withStore(ctx context.Context, cfg *config.Config, cmd string, stdout, stderr io.Writer,
	fn func(context.Context, *pgstore.Store) (any, error)) int {
	ctx, cancel := context.WithTimeout(ctx, storeCmdTimeout)
	defer cancel()
	st, err := pgstore.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return 1
	}
	defer st.Close()
	out, err := fn(ctx, st)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return 1
	}
	return printJSON(cmd, out, stdout, stderr)
}

// printJSON writes v as one JSON line. A value that cannot be encoded is
// a bug, but it still fails the command rather than printing nothing
// with exit 0 — after a create, the line is the only copy of the secret.
func printJSON(cmd string, v any, stdout, stderr io.Writer) int {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintf(stderr, "%s: encode result: %v\n", cmd, err)
		return 1
	}
	fmt.Fprintln(stdout, string(b))
	return 0
}

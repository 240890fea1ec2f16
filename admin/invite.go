package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"kurz/shared/config"
	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/secret"
)

const inviteUsage = "usage: admin invite create [--uses N] [--expires 'YYYY-MM-DD HH:MM:SS' | YYYY-MM-DD]\n"

// inviteCmd runs the invite subcommands (KURZ_REGISTRATION=invite).
func inviteCmd(ctx context.Context, cfg *config.Config, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "create" {
		fmt.Fprint(stderr, inviteUsage)
		return 2
	}
	return inviteCreate(ctx, cfg, args[1:], stdout, stderr)
}

// inviteCreate makes an invitation code and prints
// {"id","code","uses","expires"} ("uses": null = unlimited). The code is
// shown only here; the database keeps its hash.
func inviteCreate(ctx context.Context, cfg *config.Config, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("invite create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	uses := fs.Int("uses", 1, "registrations the code allows; 0 = unlimited")
	expires := fs.String("expires", "", "expiry 'YYYY-MM-DD HH:MM:SS' or YYYY-MM-DD (end of that day), UTC; default: never")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprint(stderr, inviteUsage)
		return 2
	}
	usesLeft, expiresAt, err := inviteLimits(*uses, *expires, time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "invite create: %v\n", err)
		return 2
	}
	code, hash := secret.NewInviteCode()
	return withStore(ctx, cfg, "invite create", stdout, stderr, func(ctx context.Context, st *pgstore.Store) (any, error) {
		inv, err := st.CreateInvite(ctx, hash, usesLeft, expiresAt)
		if err != nil {
			return nil, err
		}
		// uses is what the stored row allows: null = unlimited.
		return map[string]any{"id": inv.ID, "code": code, "uses": inv.UsesLeft, "expires": link.FormatTimePtr(inv.ExpiresAt)}, nil
	})
}

// inviteLimits validates the flags: uses 0 means unlimited (nil), and an
// expiry must lie in the future.
func inviteLimits(uses int, expires string, now time.Time) (*int, *time.Time, error) {
	if uses < 0 {
		return nil, nil, errors.New("uses: must be 1 or more, or 0 for unlimited")
	}
	var usesLeft *int
	if uses > 0 {
		usesLeft = &uses
	}
	if expires == "" {
		return usesLeft, nil, nil
	}
	t, err := link.ParseTime(expires)
	if err != nil {
		return nil, nil, fmt.Errorf("expires: want 'YYYY-MM-DD HH:MM:SS' or YYYY-MM-DD, got %q", expires)
	}
	if !t.After(now) {
		return nil, nil, fmt.Errorf("expires: %s UTC is in the past", link.FormatTime(t))
	}
	return usesLeft, &t, nil
}

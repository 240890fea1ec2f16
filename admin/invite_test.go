package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"kurz/shared/pgstore/pgtest"
	"kurz/shared/secret"
)

func TestInviteCreate(t *testing.T) {
	st, dsn := pgtest.Store(t)
	t.Setenv("KURZ_DATABASE_URL", dsn)
	ok := []struct {
		name    string
		args    []string
		uses    *int // stored uses_left and printed "uses"; nil = unlimited (null)
		expires string
	}{
		{"defaults", nil, inviteUses(1), ""},
		{"uses and date", []string{"--uses", "10", "--expires", "2099-12-31"}, inviteUses(10), "2099-12-31 23:59:59"},
		{"unlimited with time", []string{"--uses", "0", "--expires", "2099-01-02 03:04:05"}, nil, "2099-01-02 03:04:05"},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmd(append([]string{"invite", "create"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if strings.Count(out, "\n") != 1 {
				t.Fatalf("want exactly one line, got %q", out)
			}
			var got struct {
				ID      int64   `json:"id"`
				Code    string  `json:"code"`
				Expires *string `json:"expires"`
			}
			var fields map[string]json.RawMessage // "uses" must be present, even when null
			if json.Unmarshal([]byte(out), &got) != nil || json.Unmarshal([]byte(out), &fields) != nil {
				t.Fatalf("not JSON: %q", out)
			}
			wantUses := "null"
			if tt.uses != nil {
				wantUses = strconv.Itoa(*tt.uses)
			}
			if !strings.HasPrefix(got.Code, secret.InvitePrefix) || string(fields["uses"]) != wantUses ||
				got.Expires == nil || *got.Expires != tt.expires {
				t.Fatalf("printed %s, want uses %s", out, wantUses)
			}
			inv := pgtest.Invite(t, st, secret.HashInviteCode(got.Code))
			if inv.ID != got.ID || (inv.UsesLeft == nil) != (tt.uses == nil) || tt.uses != nil && *inv.UsesLeft != *tt.uses {
				t.Errorf("stored %+v", inv)
			}
			var clear int
			if err := pgtest.Pool(st).QueryRow(context.Background(), "SELECT count(*) FROM invites WHERE position(convert_to($1, 'UTF8') in code_hash) > 0", got.Code).Scan(&clear); err != nil || clear != 0 {
				t.Errorf("code stored in clear: %d %v", clear, err)
			}
			if tt.expires != "" && (inv.ExpiresAt == nil || inv.ExpiresAt.Format("2006-01-02 15:04:05") != tt.expires) {
				t.Errorf("stored expiry %v", inv.ExpiresAt)
			}
		})
	}

	past := time.Now().Add(-time.Hour).UTC().Format("2006-01-02 15:04:05")
	bad := []struct {
		name string
		args []string
		msg  string
	}{
		{"negative uses", []string{"create", "--uses", "-1"}, "uses: must be 1 or more"},
		{"bad expiry", []string{"create", "--expires", "next week"}, "expires: want"},
		{"past expiry", []string{"create", "--expires", past}, "in the past"},
		{"unknown flag", []string{"create", "--forever"}, "forever"},
		// "invite create 5" must not quietly make a 1-use code.
		{"stray argument", []string{"create", "5"}, "usage: admin invite create"},
		{"argument after flags", []string{"create", "--uses", "2", "extra"}, "usage: admin invite create"},
		{"no subcommand", nil, "usage: admin invite create"},
		{"unknown subcommand", []string{"delete"}, "usage: admin invite create"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmd(append([]string{"invite"}, tt.args...)...)
			if code != 2 || !strings.Contains(errs, tt.msg) || out != "" {
				t.Fatalf("exit %d stdout %q stderr %q", code, out, errs)
			}
		})
	}
	var n int
	if err := pgtest.Pool(st).QueryRow(context.Background(), "SELECT count(*) FROM invites").Scan(&n); err != nil || n != len(ok) {
		t.Fatalf("invites stored: %d %v", n, err)
	}
}

// inviteUses is a --uses value as stored (nil = unlimited).
func inviteUses(n int) *int { return &n }

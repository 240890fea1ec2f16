package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"kurz/shared/link"
	"kurz/shared/pgstore/pgtest"
	"kurz/shared/secret"
)

func TestUserRotateKey(t *testing.T) {
	st, dsn := pgtest.Store(t)
	t.Setenv("KURZ_DATABASE_URL", dsn)
	ctx := context.Background()
	code, out, errs := runCmd("user", "create", "--email", "Demo@Example.com", "--username", "demo")
	if code != 0 {
		t.Fatalf("create: exit %d: %s", code, errs)
	}
	var created struct {
		ID     int64  `json:"id"`
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatal(err)
	}

	code, out, errs = runCmd("user", "rotate-key", "--email", " demo@example.COM ")
	if code != 0 {
		t.Fatalf("rotate-key: exit %d: %s", code, errs)
	}
	if strings.Count(out, "\n") != 1 {
		t.Fatalf("want exactly one line, got %q", out)
	}
	var got struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
		Email    string `json:"email"`
		APIKey   string `json:"api_key"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %q", out)
	}
	if got.ID != created.ID || got.Username != "demo" || got.Email != "Demo@Example.com" ||
		!strings.HasPrefix(got.APIKey, secret.KeyPrefix) || got.APIKey == created.APIKey {
		t.Fatalf("got %+v (created %+v)", got, created)
	}
	if u, err := st.UserByKeyHash(ctx, secret.HashAPIKey(got.APIKey)); err != nil || u.ID != created.ID {
		t.Fatalf("new key does not resolve: %v", err)
	}
	if _, err := st.UserByKeyHash(ctx, secret.HashAPIKey(created.APIKey)); !errors.Is(err, link.ErrNotFound) {
		t.Fatalf("old key still resolves: %v", err)
	}

	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unknown email", []string{"--email", "nobody@example.com"}, 1, `no account with email "nobody@example.com"`},
		{"missing email", nil, 2, "usage: admin user rotate-key --email E"},
		{"blank email", []string{"--email", " "}, 2, "usage"},
		{"stray argument", []string{"--email", "demo@example.com", "extra"}, 2, "usage"},
		{"unknown flag", []string{"--username", "demo"}, 2, "username"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmd(append([]string{"user", "rotate-key"}, tt.args...)...)
			if code != tt.code || !strings.Contains(errs, tt.msg) || out != "" {
				t.Fatalf("exit %d stdout %q stderr %q", code, out, errs)
			}
		})
	}
	if code, _, errs := runCmd("user", "frobnicate"); code != 2 || !strings.Contains(errs, "rotate-key") {
		t.Fatalf("unknown user subcommand: exit %d %q", code, errs)
	}
}

package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
	"kurz/shared/secret"
)

// TestUserResetPassword: the command prints a one-time link to the
// dashboard's reset page whose token the store knows (by hash only).
func TestUserResetPassword(t *testing.T) {
	st, dsn := pgtest.Store(t)
	t.Setenv("KURZ_DATABASE_URL", dsn)
	_, h := secret.NewAPIKey()
	u, err := st.CreateUser(context.Background(), pgstore.NewUser{Email: "ann@example.com", Username: "ann", Plan: "free", APIKeyHash: h})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
		ResetURL string `json:"reset_url"`
		Expires  string `json:"expires"`
	}
	tests := []struct {
		name, env, addr string
		args            []string
		prefix          string
	}{
		{"flag", "", "", []string{"--url", "https://app.example.com/"}, "https://app.example.com/reset/"},
		{"KURZ_DASHBOARD_URL", "https://dash.example.com", "", nil, "https://dash.example.com/reset/"},
		{"admin address", "", ":9999", nil, "http://localhost:9999/reset/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KURZ_DASHBOARD_URL", tt.env)
			t.Setenv("KURZ_ADMIN_ADDR", tt.addr)
			code, out, errs := runCmd(append([]string{"user", "reset-password", "--email", "ANN@example.com"}, tt.args...)...)
			if code != 0 || strings.Count(out, "\n") != 1 {
				t.Fatalf("exit %d: %q %s", code, out, errs)
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			token, ok := strings.CutPrefix(got.ResetURL, tt.prefix)
			if !ok || got.ID != u.ID || got.Username != "ann" {
				t.Fatalf("got %+v", got)
			}
			if ru, err := st.PasswordResetUser(context.Background(), secret.HashToken(token)); err != nil || ru.ID != u.ID {
				t.Fatalf("the printed token is not stored: %v", err)
			}
			exp, err := time.Parse("2006-01-02 15:04:05", got.Expires)
			if d := time.Until(exp); err != nil || d < 58*time.Minute || d > 61*time.Minute {
				t.Errorf("expires %q", got.Expires)
			}
		})
	}
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--email", "nobody@example.com"}, 1, "no account"},
		{nil, 2, "usage"},
		{[]string{"--email", "ann@example.com", "--valid", "100h"}, 2, "--valid"},
	} {
		if code, out, errs := runCmd(append([]string{"user", "reset-password"}, tt.args...)...); code != tt.code || out != "" || !strings.Contains(errs, tt.msg) {
			t.Errorf("%v: exit %d, %q %q", tt.args, code, out, errs)
		}
	}
}

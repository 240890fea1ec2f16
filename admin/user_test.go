package main

import (
	"strings"
	"testing"

	"kurz/shared/pgstore/pgtest"
)

// Operators may give out names self-registration refuses; passwords follow
// the API's rules (api.ValidPassword).
func TestUserCreateRules(t *testing.T) {
	_, dsn := pgtest.Store(t)
	t.Setenv("KURZ_DATABASE_URL", dsn)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"reserved name", []string{"--email", "ops@example.com", "--username", "admin"}, 0, ""},
		{"password is username", []string{"--email", "a@example.com", "--username", "longname", "--password", "LONGNAME"}, 2, "password: must not be the username"},
		{"password is email", []string{"--email", "a@example.com", "--username", "user1", "--password", "a@example.com"}, 2, "password: must not be the username or the email"},
		{"long password", []string{"--email", "a@example.com", "--username", "user1", "--password", strings.Repeat("p", 1025)}, 2, "password: must be at most 1024 bytes"},
		{"short password", []string{"--email", "a@example.com", "--username", "user1", "--password", "1234567"}, 2, "password: must be at least 8 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmd(append([]string{"user", "create"}, tt.args...)...)
			if code != tt.code || !strings.Contains(errs, tt.msg) || (code == 0) != (out != "") {
				t.Fatalf("exit %d stdout %q stderr %q", code, out, errs)
			}
		})
	}
}

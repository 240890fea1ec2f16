package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/pgstore/pgtest"
	"kurz/shared/secret"
)

func runCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUserCreate(t *testing.T) {
	st, dsn := pgtest.Store(t)
	t.Setenv("KURZ_DATABASE_URL", dsn)
	code, out, errs := runCmd("user", "create", "--email", "ops@example.com", "--username", "ops",
		"--password", "long password", "--plan", "pro", "--rate-limit", "0", "--expires", "2099-12-31 23:59:59", "--admin")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
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
	if got.ID == 0 || got.Username != "ops" || got.Email != "ops@example.com" || !strings.HasPrefix(got.APIKey, secret.KeyPrefix) {
		t.Fatalf("got %+v", got)
	}
	u, err := st.UserByKeyHash(context.Background(), secret.HashAPIKey(got.APIKey))
	if err != nil {
		t.Fatalf("key does not resolve: %v", err)
	}
	if !u.IsOperator || u.Plan != "pro" || u.RateLimit == nil || *u.RateLimit != 0 ||
		u.ExpiresAt == nil || !u.ExpiresAt.Equal(time.Date(2099, 12, 31, 23, 59, 59, 0, time.UTC)) {
		t.Fatalf("stored user %+v", u)
	}
	// Only the hash is stored.
	var n int
	if err := pgtest.Pool(st).QueryRow(context.Background(), "SELECT count(*) FROM users WHERE api_key_hash::text LIKE '%' || $1 || '%' OR password_hash = 'long password'", got.APIKey).Scan(&n); err != nil || n != 0 {
		t.Fatalf("secret stored in clear: n=%d err=%v", n, err)
	}

	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"duplicate email", []string{"--email", "ops@example.com", "--username", "other"}, 1, "already taken"},
		{"duplicate username", []string{"--email", "x@example.com", "--username", "OPS"}, 1, "already taken"},
		{"missing email", []string{"--username", "user1"}, 2, "email"},
		{"bad email", []string{"--email", "nope", "--username", "user1"}, 2, "email"},
		{"bad username", []string{"--email", "a@example.com", "--username", "a b"}, 2, "username"},
		{"short password", []string{"--email", "a@example.com", "--username", "user1", "--password", "short"}, 2, "password"},
		{"bad expires", []string{"--email", "a@example.com", "--username", "user1", "--expires", "tomorrow"}, 2, "expires"},
		{"bad rate", []string{"--email", "a@example.com", "--username", "user1", "--rate-limit", "-5"}, 2, "rate-limit"},
		{"unknown flag", []string{"--email", "a@example.com", "--username", "user1", "--bogus"}, 2, "bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmd(append([]string{"user", "create"}, tt.args...)...)
			if code != tt.code || !strings.Contains(errs, tt.msg) || out != "" {
				t.Fatalf("exit %d stdout %q stderr %q", code, out, errs)
			}
		})
	}
}

func TestMigrateCommand(t *testing.T) {
	pgDSN := pgtest.Empty(t)
	chDSN := emptyClickHouse(t)
	t.Setenv("KURZ_DATABASE_URL", pgDSN)
	t.Setenv("KURZ_CLICKHOUSE_URL", chDSN)
	// Two migrators at once, then a third: all succeed, schema complete.
	var wg sync.WaitGroup
	codes := make([]int, 2)
	errs := make([]string, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, errs[i] = runCmd("migrate")
		}()
	}
	wg.Wait()
	for i := range 2 {
		if codes[i] != 0 {
			t.Fatalf("migrator %d: exit %d: %s", i, codes[i], errs[i])
		}
	}
	if code, _, errs := runCmd("migrate"); code != 0 {
		t.Fatalf("re-run: exit %d: %s", code, errs)
	}
	ctx := context.Background()
	st := pgtest.Open(t, pgDSN)
	var tables int
	if err := pgtest.Pool(st).QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename IN ('users','links','qr_codes')").Scan(&tables); err != nil || tables != 3 {
		t.Fatalf("postgres tables: %d %v", tables, err)
	}
	ch, err := chstore.Open(ctx, chDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	var n uint64
	if err := ch.QueryRow(ctx, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'clicks'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("clickhouse clicks table: %d %v", n, err)
	}
}

func TestUsage(t *testing.T) {
	if code, _, errs := runCmd(); code != 2 || !strings.Contains(errs, "usage") {
		t.Fatalf("no args: %d %q", code, errs)
	}
	if code, _, errs := runCmd("frobnicate"); code != 2 || !strings.Contains(errs, "unknown command") {
		t.Fatalf("unknown: %d %q", code, errs)
	}
}

// emptyClickHouse creates an empty database on the test ClickHouse.
func emptyClickHouse(t *testing.T) string {
	t.Helper()
	// chtest.New gives a migrated database; we want an empty one, so make a
	// sibling name and drop both at the end.
	_, migrated := chtest.New(t)
	dsn := strings.Replace(migrated, "/t_", "/e_", 1)
	ctx := context.Background()
	admin, err := chstore.Open(ctx, migrated)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	db := dsn[strings.LastIndex(dsn, "/")+1:]
	if i := strings.IndexByte(db, '?'); i >= 0 {
		db = db[:i]
	}
	if err := admin.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := chstore.Open(context.Background(), migrated)
		if err == nil {
			c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db) //nolint:errcheck
			c.Close()
		}
	})
	return dsn
}

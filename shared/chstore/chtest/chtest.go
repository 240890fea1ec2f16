// Package chtest gives each test its own, fully migrated ClickHouse
// database on the server named by KURZ_TEST_CLICKHOUSE_URL, and can start a
// throwaway ClickHouse server for tests that stop and restart it. A missing
// server fails the test; it never skips.
package chtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
)

// EnvURL names the variable holding the test server's DSN.
const EnvURL = "KURZ_TEST_CLICKHOUSE_URL"

// New creates a fresh database t_<random> on the test server, migrates it,
// and returns a connection bound to it plus its DSN (for processes the test
// starts). The database is dropped when t ends.
func New(t testing.TB) (driver.Conn, string) {
	t.Helper()
	admin := os.Getenv(EnvURL)
	if admin == "" {
		t.Fatalf("%s is not set: run the tests with `make test`, which starts ClickHouse (e.g. %s=clickhouse://127.0.0.1:59001/default)", EnvURL, EnvURL)
	}
	return NewOn(t, admin)
}

// NewOn is New against the server at adminDSN.
func NewOn(t testing.TB, adminDSN string) (driver.Conn, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	name := "t_" + randomHex(8)
	if err := execAdmin(ctx, adminDSN, "CREATE DATABASE IF NOT EXISTS "+name); err != nil {
		t.Fatalf("chtest: is ClickHouse at %s running? %v", chstore.Redact(adminDSN), err)
	}
	dsn, err := chstore.WithDatabase(adminDSN, name)
	if err != nil {
		t.Fatalf("chtest: %v", err)
	}
	conn, err := chstore.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("chtest: %v", err)
	}
	t.Cleanup(func() {
		conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := execAdmin(ctx, adminDSN, "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Logf("chtest: drop %s: %v", name, err)
		}
	})
	if err := chstore.MigrateEmbedded(ctx, conn); err != nil {
		t.Fatalf("chtest: migrate %s: %v", name, err)
	}
	return conn, dsn
}

func execAdmin(ctx context.Context, dsn, stmt string) error {
	conn, err := chstore.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Exec(ctx, stmt)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read never fails on Linux
	return hex.EncodeToString(b)
}

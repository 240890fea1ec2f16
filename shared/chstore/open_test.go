package chstore_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
)

func mustEnv(t *testing.T) string {
	t.Helper()
	v := os.Getenv(chtest.EnvURL)
	if v == "" {
		t.Fatalf("%s is not set", chtest.EnvURL)
	}
	return v
}

func TestOptions(t *testing.T) {
	tests := []struct {
		dsn         string
		dial, read  time.Duration
		compression clickhouse.CompressionMethod
		db          string
	}{
		{"clickhouse://127.0.0.1:9000/kurz", chstore.DefaultDialTimeout, chstore.DefaultReadTimeout, clickhouse.CompressionLZ4, "kurz"},
		{"clickhouse://127.0.0.1:9000/kurz?dial_timeout=1s&read_timeout=2s&compress=zstd", time.Second, 2 * time.Second, clickhouse.CompressionZSTD, "kurz"},
	}
	for _, tt := range tests {
		t.Run(tt.dsn, func(t *testing.T) {
			o, err := chstore.Options(tt.dsn)
			if err != nil {
				t.Fatal(err)
			}
			if o.DialTimeout != tt.dial || o.ReadTimeout != tt.read || o.Compression.Method != tt.compression || o.Auth.Database != tt.db {
				t.Fatalf("got dial %s read %s compression %v db %q", o.DialTimeout, o.ReadTimeout, o.Compression.Method, o.Auth.Database)
			}
		})
	}
}

func TestOpenFailsFast(t *testing.T) {
	tests := []struct{ name, dsn string }{
		{"unparsable", "clickhouse://[::1"},
		{"nobody listening", "clickhouse://127.0.0.1:1/default?dial_timeout=500ms"},
		{"unknown database", strings.Replace(mustEnv(t), "/default", "/no_such_db_kurz", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			conn, err := chstore.Open(context.Background(), tt.dsn)
			if err == nil {
				conn.Close()
				t.Fatal("Open succeeded")
			}
			if time.Since(start) > 5*time.Second {
				t.Fatalf("Open took %s to fail", time.Since(start))
			}
		})
	}
}

func TestRedact(t *testing.T) {
	got := chstore.Redact("clickhouse://u:secret@h:9000/db")
	if strings.Contains(got, "secret") {
		t.Fatalf("Redact leaked the password: %s", got)
	}
}

package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kurz/shared/chstore/chtest"
	"kurz/shared/pgstore/pgtest"
)

// TestServeRefusesDevSecret: the edge without KURZ_SECRET (or with the
// development value) refuses to start unless KURZ_DEV=1. Its address is
// taken, so an edge that gets past the check (with real servers behind it)
// exits at its listener instead of running.
func TestServeRefusesDevSecret(t *testing.T) {
	_, dsn := pgtest.Store(t)
	_, chDSN := chtest.New(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	tests := []struct {
		name    string
		env     []string
		refused bool
	}{
		{"unset", nil, true},
		{"development value", []string{"KURZ_SECRET=kurz-dev-secret-change-me"}, true},
		{"KURZ_DEV other than 1", []string{"KURZ_DEV=true"}, true},
		{"unset, KURZ_DEV=1", []string{"KURZ_DEV=1"}, false},
		{"set", []string{"KURZ_SECRET=a-long-random-production-secret-0123456789"}, false},
		{"too short", []string{"KURZ_SECRET=short-secret"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, edgeBin, "serve")
			for _, kv := range os.Environ() { // none of the caller's KURZ_* (make test sets KURZ_DEV=1)
				if !strings.HasPrefix(kv, "KURZ_") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			cmd.Env = append(cmd.Env, "KURZ_DATABASE_URL="+dsn, "KURZ_CLICKHOUSE_URL="+chDSN,
				"KURZ_EDGE_ADDR="+taken.Addr().String(), "KURZ_BASE_URL=http://kurz.test", "KURZ_WARM_LINKS=0",
				"KURZ_SPOOL_DIR="+filepath.Join(t.TempDir(), "spool"), "KURZ_LOG_LEVEL=warn")
			cmd.Env = append(cmd.Env, tt.env...)
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("edge still running after 20 s: %s", out)
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Fatalf("exit: %v, want status 1: %s", err, out)
			}
			refused := strings.Contains(string(out), "KURZ_SECRET is not set") || strings.Contains(string(out), "KURZ_SECRET is too short")
			if refused != tt.refused {
				t.Fatalf("refused for KURZ_SECRET: %v, want %v; output: %s", refused, tt.refused, out)
			}
			if !tt.refused && !strings.Contains(string(out), "address already in use") {
				t.Fatalf("did not get to its listener: %s", out)
			}
		})
	}
}

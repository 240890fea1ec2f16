package main

import (
	"net"
	"strings"
	"testing"

	"kurz/shared/chstore/chtest"
	"kurz/shared/pgstore/pgtest"
)

// TestServeRefusesDevSecret: `admin serve` without KURZ_SECRET (or with the
// development value) refuses to start unless KURZ_DEV=1. The admin address
// is taken, so a serve that gets past the check (with real servers behind
// it) fails at its listener instead of running.
func TestServeRefusesDevSecret(t *testing.T) {
	_, dsn := pgtest.Store(t)
	_, chDSN := chtest.New(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	tests := []struct {
		name, secret, dev string
		refused           bool
	}{
		{"unset", "", "", true},
		{"development value", "kurz-dev-secret-change-me", "", true},
		{"KURZ_DEV other than 1", "", "yes", true},
		{"unset, KURZ_DEV=1", "", "1", false},
		{"set", "a-long-random-production-secret-0123456789", "", false},
		{"too short", "short-secret", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range map[string]string{
				"KURZ_SECRET": tt.secret, "KURZ_DEV": tt.dev, "KURZ_DATABASE_URL": dsn, "KURZ_CLICKHOUSE_URL": chDSN,
				"KURZ_ADMIN_ADDR": taken.Addr().String(), "KURZ_PRICE_ADDR": "", "KURZ_PRICE_POLL_URL": "", "KURZ_LOG_LEVEL": "error",
			} {
				t.Setenv(k, v)
			}
			code, _, errs := runCmd("serve")
			if code != 1 {
				t.Fatalf("exit %d, want 1: %s", code, errs)
			}
			if refused := strings.Contains(errs, "KURZ_SECRET"); refused != tt.refused {
				t.Fatalf("refused for KURZ_SECRET: %v, want %v; stderr: %s", refused, tt.refused, errs)
			}
			if !tt.refused && !strings.Contains(errs, "address already in use") {
				t.Fatalf("did not get to its listener: %s", errs)
			}
		})
	}
}

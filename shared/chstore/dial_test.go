package chstore_test

import (
	"context"
	"testing"
	"time"

	"kurz/shared/chstore"
)

// Dial starts without ClickHouse (a client for later, the ping's error as
// down), answers at once when it is up, and refuses a DSN that does not
// parse.
func TestDial(t *testing.T) {
	tests := []struct {
		name     string
		dsn      string
		down, ok bool
	}{
		{"up", mustEnv(t), false, true},
		{"nobody listening", "clickhouse://127.0.0.1:1/default?dial_timeout=200ms", true, true},
		{"unparsable", "clickhouse://[::1", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			conn, down, err := chstore.Dial(ctx, tt.dsn)
			if (err == nil) != tt.ok || (down != nil) != tt.down || (conn != nil) != tt.ok {
				t.Fatalf("conn %v, down %v, err %v", conn != nil, down, err)
			}
			if conn != nil {
				conn.Close()
			}
		})
	}
}

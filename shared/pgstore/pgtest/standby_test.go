package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestStandby: a row written on the primary reaches the standby, and not
// while its replay is paused.
func TestStandby(t *testing.T) {
	pool, dsn := New(t)
	sb := NewStandby(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, sb.URL(dsn))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	count := func() int {
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM users WHERE username = 'standby'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	waitCount := func(want int) {
		deadline := time.Now().Add(10 * time.Second)
		for count() != want {
			if time.Now().After(deadline) {
				t.Fatalf("standby: %d rows, want %d", count(), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	sb.Pause()
	if _, err := pool.Exec(ctx, `INSERT INTO users (email, username, plan, api_key_hash) VALUES ('s@example.com', 'standby', 'free', 'h'::bytea)`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // would the paused standby show it?
	if n := count(); n != 0 {
		t.Fatalf("paused standby shows the new row (%d)", n)
	}
	sb.Resume()
	waitCount(1)
}

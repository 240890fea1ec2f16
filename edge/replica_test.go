package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"kurz/shared/chstore/chtest"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// TestReadReplica: an edge with KURZ_DATABASE_READ_URL on a real streaming
// standby warms up and loads links from it; while the standby's replay is
// paused (lag as long as the test likes), a link created and one changed
// on the primary are served right away, never the standby's old rows;
// once it has replayed them, loads read it again.
func TestReadReplica(t *testing.T) {
	store, dsn := pgtest.Store(t)
	_, chDSN := chtest.New(t)
	ctx := context.Background()
	u, err := store.CreateUser(ctx, pgstore.NewUser{Email: "r@example.com", Username: "r", Plan: "free", APIKeyHash: []byte("k")})
	if err != nil {
		t.Fatal(err)
	}
	pool := pgtest.Pool(store)
	addLink := func(alias, url string) {
		t.Helper()
		if _, err := pool.Exec(ctx, `INSERT INTO links (user_id, alias, long_url) VALUES ($1, $2, $3)`, u.ID, alias, url); err != nil {
			t.Fatal(err)
		}
	}
	addLink("warm", "https://example.com/warm")
	sb := pgtest.NewStandby(t)
	edge := startEdge(t, dsn, chDSN, "KURZ_DATABASE_READ_URL="+sb.URL(dsn))

	// The warm-up read the standby, and serves from it.
	if !strings.Contains(sb.Statements(), "ORDER BY l.updated_at DESC") {
		t.Fatal("the warm-up query did not reach the standby")
	}
	if got := locationAt(t, edge, "/warm"); got != "302 https://example.com/warm" {
		t.Fatalf("/warm: %s", got)
	}

	// Replay paused: the standby lacks what the primary commits now.
	sb.Pause()
	const lagLinks = 10
	for i := range lagLinks {
		addLink(fmt.Sprint("lag", i), fmt.Sprint("https://example.com/lag", i))
	}
	if _, err := pool.Exec(ctx, `UPDATE links SET long_url = 'https://example.com/warm2' WHERE alias = 'warm'`); err != nil {
		t.Fatal(err)
	}
	waitLocation(t, edge, "/lag0", "302 https://example.com/lag0")
	waitLocation(t, edge, "/warm", "302 https://example.com/warm2")

	// Replay resumed: once the standby has the rows (and the edge's probe
	// has seen it), loads go to it again.
	sb.Resume()
	replica := pgtest.Pool(pgtest.Open(t, sb.URL(dsn)))
	deadline := time.Now().Add(10 * time.Second)
	for n := 0; n < lagLinks; {
		if err := replica.QueryRow(ctx, `SELECT count(*) FROM links WHERE alias LIKE 'lag%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby has %d of the %d links 10 s after its replay resumed", n, lagLinks)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i := 1; ; i++ {
		if i == lagLinks {
			t.Fatal("no load reached the standby after its replay resumed")
		}
		alias := fmt.Sprint("lag", i)
		waitLocation(t, edge, "/"+alias, fmt.Sprintf("302 https://example.com/lag%d", i))
		if strings.Contains(sb.Statements(), "'"+alias+"'") {
			t.Logf("%s loaded from the standby", alias)
			break
		}
		time.Sleep(100 * time.Millisecond) // one probe interval: let the edge see the replay
	}
}

// waitLocation polls path at the edge until it answers want, for at most
// the second a change may take to reach an edge.
func waitLocation(t *testing.T, addr, path, want string) {
	t.Helper()
	start := time.Now()
	for {
		got := locationAt(t, addr, path)
		if got == want {
			return
		}
		if time.Since(start) > time.Second {
			t.Fatalf("%s: %s after %v, want %s", path, got, time.Since(start), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

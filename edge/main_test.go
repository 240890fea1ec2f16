package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"kurz/shared/chstore/chtest"
	"kurz/shared/obs/obstest"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

var edgeBin string

// TestMain builds the edge binary once; the tests run it as real processes.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "edge-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	edgeBin = filepath.Join(dir, "edge")
	if out, err := exec.Command("go", "build", "-o", edgeBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build edge: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func freeAddr(t *testing.T) string { return obstest.FreeAddr(t) }

// startEdge runs one edge process and waits until it is ready. Its
// metrics listener is off unless env sets KURZ_EDGE_METRICS_ADDR (the
// default port would clash between edges); env entries win over the
// defaults.
func startEdge(t *testing.T, dsn, chDSN string, env ...string) string {
	return startEdgeLogging(t, dsn, chDSN, os.Stderr, env...)
}

func startEdgeLogging(t *testing.T, dsn, chDSN string, stderr io.Writer, env ...string) string {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(edgeBin, "serve")
	cmd.Env = append(os.Environ(),
		"KURZ_DATABASE_URL="+dsn, "KURZ_CLICKHOUSE_URL="+chDSN, "KURZ_EDGE_ADDR="+addr,
		"KURZ_BASE_URL=http://kurz.test", "KURZ_SPOOL_DIR="+filepath.Join(t.TempDir(), "spool"),
		"KURZ_SECRET=two-edges-test-secret-0123456789abcdef", "KURZ_LOG_LEVEL=warn", "KURZ_EDGE_METRICS_ADDR=")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("edge %s exit: %v", addr, err)
			}
		case <-time.After(15 * time.Second):
			cmd.Process.Kill() //nolint:errcheck
			t.Errorf("edge %s did not stop on SIGTERM", addr)
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return addr
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("edge %s not ready: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var noFollow = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Timeout:       5 * time.Second,
}

func locationAt(t *testing.T, addr, path string) string {
	t.Helper()
	resp, err := noFollow.Get("http://" + addr + path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("Location"))
}

// TestInvalidationAcrossEdges: a change written to PostgreSQL is visible at
// two running edge processes within 1 s.
func TestInvalidationAcrossEdges(t *testing.T) {
	store, dsn := pgtest.Store(t)
	_, chDSN := chtest.New(t)
	ctx := context.Background()
	u, err := store.CreateUser(ctx, pgstore.NewUser{Email: "a@example.com", Username: "a", Plan: "free", APIKeyHash: []byte("k")})
	if err != nil {
		t.Fatal(err)
	}
	pool := pgtest.Pool(store)
	if _, err := pool.Exec(ctx, `INSERT INTO links (user_id, alias, long_url) VALUES ($1, 'two', 'https://example.com/v1')`, u.ID); err != nil {
		t.Fatal(err)
	}
	edges := []string{startEdge(t, dsn, chDSN), startEdge(t, dsn, chDSN)}
	for _, a := range edges {
		if got := locationAt(t, a, "/two"); got != "302 https://example.com/v1" {
			t.Fatalf("%s: %s", a, got)
		}
		if got := locationAt(t, a, "/fresh"); got != "404 " {
			t.Fatalf("%s: %s", a, got) // now negatively cached
		}
	}
	if _, err := pool.Exec(ctx, `UPDATE links SET long_url = 'https://example.com/v2' WHERE alias = 'two'`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO links (user_id, alias, long_url) VALUES ($1, 'fresh', 'https://example.com/fresh')`, u.ID); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for _, a := range edges {
		for _, c := range []struct{ path, want string }{
			{"/two", "302 https://example.com/v2"},
			{"/fresh", "302 https://example.com/fresh"},
		} {
			for {
				got := locationAt(t, a, c.path)
				if got == c.want {
					break
				}
				if time.Since(start) > time.Second {
					t.Fatalf("edge %s %s: %s after %v, want %s", a, c.path, got, time.Since(start), c.want)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
	t.Logf("both edges up to date %v after the commit", time.Since(start))
}

// Package scaletest runs several edge and admin processes on one
// PostgreSQL and one ClickHouse database (issue 17, "Past one machine"):
// the state they share lives in the stores, so a change, a rate limit and
// the click counts are the same whichever process a request reaches.
package scaletest

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kurz/internal/proctest"
	"kurz/shared/chstore/chtest"
	"kurz/shared/obs/obstest"
	"kurz/shared/pgstore/pgtest"
)

var binDir string // holds edge and admin, built by TestMain

func TestMain(m *testing.M) { os.Exit(proctest.Main(m, &binDir, "edge", "admin")) }

// cluster is N edges and N admins on one pair of databases.
type cluster struct {
	t      *testing.T
	env    []string
	edges  []string // base URLs
	admins []string
	// redirects counts the redirects the edges answered the test: each
	// is a click the edge counts, polls included.
	redirects int
}

func newCluster(t *testing.T, n int) *cluster {
	t.Helper()
	_, pgDSN := pgtest.New(t)
	_, chDSN := chtest.New(t)
	c := &cluster{t: t, env: append(os.Environ(),
		"KURZ_DATABASE_URL="+pgDSN, "KURZ_CLICKHOUSE_URL="+chDSN, "KURZ_PRICE_ADDR=",
		"KURZ_BASE_URL=http://sho.rt", "KURZ_SECRET=scale-secret-0123456789abcdef0123456789",
		"KURZ_CLICK_FLUSH_INTERVAL=200ms", "KURZ_LOG_LEVEL=warn", "KURZ_EDGE_METRICS_ADDR=", "KURZ_ADMIN_METRICS_ADDR=",
	)}
	for range n {
		addr := obstest.FreeAddr(t)
		c.start("admin", []string{"KURZ_ADMIN_ADDR=" + addr}, "serve")
		c.admins = append(c.admins, "http://"+addr)
	}
	for range n {
		addr := obstest.FreeAddr(t)
		c.start("edge", []string{"KURZ_EDGE_ADDR=" + addr, "KURZ_SPOOL_DIR=" + t.TempDir()})
		c.edges = append(c.edges, "http://"+addr)
	}
	for _, base := range append(append([]string{}, c.admins...), c.edges...) {
		proctest.WaitReady(t, base)
	}
	return c
}

func (c *cluster) command(name string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(binDir, name), args...)
	cmd.Env = append(append([]string{}, c.env...), env...)
	return cmd
}

// start runs a process until the test ends.
func (c *cluster) start(name string, env []string, args ...string) {
	c.t.Helper()
	proctest.Start(c.t, name, c.command(name, env, args...))
}

// user creates an account with the given API rate limit (0 = none) and
// returns its API key.
func (c *cluster) user(name string, limit int) string {
	c.t.Helper()
	return proctest.APIKey(c.t, c.command("admin", nil, "user", "create", "--email", name+"@example.com",
		"--username", name, "--rate-limit", fmt.Sprint(limit)))
}

// call sends an API request to one admin and returns the status and the
// decoded body.
func (c *cluster) call(admin, key, method, path string, body any) (int, map[string]any) {
	c.t.Helper()
	st, out, _ := proctest.Call(c.t, admin, key, method, path, body)
	return st, out
}

// location visits alias at edge and returns "status location".
func location(t *testing.T, edge, alias string, ip string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", edge+"/"+alias, nil)
	req.Host = "sho.rt"
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0")
	if ip != "" {
		req.Header.Set("X-Forwarded-For", ip)
	}
	res, err := proctest.NoRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body) //nolint:errcheck
	res.Body.Close()
	return fmt.Sprintf("%d %s", res.StatusCode, res.Header.Get("Location"))
}

// waitAll polls every edge until alias answers want, for at most 1 s
// after since.
func (c *cluster) waitAll(alias, want string, since time.Time) {
	c.t.Helper()
	for _, e := range c.edges {
		for {
			got := location(c.t, e, alias, "")
			if strings.HasPrefix(got, "302 ") {
				c.redirects++
			}
			if got == want {
				break
			}
			if time.Since(since) > time.Second {
				c.t.Fatalf("edge %s /%s: %q %v after the write, want %q", e, alias, got, time.Since(since), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestTwoEdgesTwoAdmins: a link written through one admin is seen by both
// edges within a second; one rate limit holds across both admins; the
// clicks both edges take are all counted.
func TestTwoEdgesTwoAdmins(t *testing.T) {
	c := newCluster(t, 2)
	a, b := c.admins[0], c.admins[1]
	key := c.user("scale", 0)

	// A link update through admin A reaches both edges within 1 s.
	st, r := c.call(a, key, "POST", "/api/url/add", map[string]any{"url": "https://example.com/v1", "custom": "scaled"})
	if st != http.StatusOK {
		t.Fatalf("add link: %d %v", st, r)
	}
	id := int64(r["id"].(float64))
	c.waitAll("scaled", "302 https://example.com/v1", time.Now())
	start := time.Now()
	if st, r := c.call(a, key, "PUT", fmt.Sprintf("/api/url/%d/update", id), map[string]any{"url": "https://example.com/v2"}); st != http.StatusOK {
		t.Fatalf("update link: %d %v", st, r)
	}
	c.waitAll("scaled", "302 https://example.com/v2", start)
	t.Logf("both edges serve the update %v after the write", time.Since(start))

	// Clicks sent to both edges are all counted.
	const perEdge = 25
	for i := range perEdge {
		for j, e := range c.edges {
			if got := location(t, e, "scaled", fmt.Sprintf("198.51.100.%d", j*100+i+1)); got != "302 https://example.com/v2" {
				t.Fatalf("visit %d at %s: %s", i, e, got)
			}
			c.redirects++
		}
	}
	want := float64(c.redirects)
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, r := c.call(b, key, "GET", fmt.Sprintf("/api/url/%d", id), nil)
		data, _ := r["data"].(map[string]any)
		if data["clicks"] == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("admin B counts %v clicks 15 s after the visits, want %v", data["clicks"], want)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// One rate limit across both admins: N requests in a window in all.
	const limit = 6
	limited := c.user("limited", limit)
	for time.Now().Second() >= 50 { // the window is the minute: keep the test inside one
		time.Sleep(100 * time.Millisecond)
	}
	ok := 0
	for i := range 2 * limit {
		admin := c.admins[i%2]
		switch st, r := c.call(admin, limited, "GET", "/api/urls", nil); st {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("request %d at %s: %d %v", i, admin, st, r)
		}
	}
	if ok != limit {
		t.Fatalf("%d of %d requests across both admins succeeded, want the limit %d", ok, 2*limit, limit)
	}
	for _, admin := range c.admins {
		if st, _ := c.call(admin, limited, "GET", "/api/urls", nil); st != http.StatusTooManyRequests {
			t.Fatalf("%s past the shared limit: %d, want 429", admin, st)
		}
	}
}

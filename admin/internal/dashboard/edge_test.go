package dashboard

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"kurz/shared/config"
)

// A real edge process beside the admin handler: built from this tree,
// on the env's PostgreSQL and ClickHouse databases, with the real click
// pipeline. The dashboard's short links point at it, so a browser can
// visit them and the statistics page shows what the edge counted.

// edgeCountryHeader is the header the edge trusts for the visitor's
// country from a trusted proxy (here: loopback, where the browser is).
const edgeCountryHeader = "CF-IPCountry"

// withEdge makes a free loopback address the short domain of the env, for
// an edge started on it with startEdge.
func withEdge(t *testing.T) (addr string, opt func(*config.Config)) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	ln.Close()
	return addr, func(c *config.Config) { c.BaseURL, c.BaseHost = "http://"+addr, addr }
}

// startEdge builds and runs the edge on addr until the test ends, and
// waits until it is ready.
func (e *env) startEdge(addr string) {
	t := e.t
	t.Helper()
	bin := filepath.Join(t.TempDir(), "edge")
	if out, err := exec.Command("go", "build", "-o", bin, "kurz/edge").CombinedOutput(); err != nil {
		t.Fatalf("go build kurz/edge: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(),
		"KURZ_DATABASE_URL="+e.pgDSN, "KURZ_CLICKHOUSE_URL="+e.chDSN, "KURZ_EDGE_ADDR="+addr, "KURZ_PRICE_ADDR=",
		"KURZ_BASE_URL="+e.cfg.BaseURL, "KURZ_SECRET=dashboard-e2e-secret-0123456789abcdef",
		"KURZ_CLICK_FLUSH_INTERVAL=200ms", "KURZ_SPOOL_DIR="+t.TempDir(),
		"KURZ_COUNTRY_HEADER="+edgeCountryHeader, "KURZ_TRUSTED_PROXIES=127.0.0.1/32", "KURZ_LOG_LEVEL=warn")
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the edge: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // it may have exited
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill() //nolint:errcheck
			t.Errorf("the edge did not stop on SIGTERM")
		}
		if t.Failed() {
			t.Logf("edge output:\n%s", log.String())
		}
	})
	waitFor(t, 15*time.Second, "the edge to be ready", func() bool {
		return edgeStatus("http://"+addr+"/readyz") == http.StatusOK
	})
}

// edgeStatus is the status of a GET that does not follow redirects (0 when
// the request failed).
func edgeStatus(url string) int {
	res, err := noRedirect.Get(url)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, res.Body) //nolint:errcheck
	res.Body.Close()
	return res.StatusCode
}

var noRedirect = &http.Client{Timeout: 5 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// waitFor polls cond until it holds, failing t after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", d, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

package dashboard

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"kurz/internal/proctest"
	"kurz/shared/config"
	"kurz/shared/obs/obstest"
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
	addr = obstest.FreeAddr(t)
	return addr, func(c *config.Config) { c.BaseURL, c.BaseHost = "http://"+addr, addr }
}

// startEdge builds and runs the edge on addr until the test ends, and
// waits until it is ready.
func (e *env) startEdge(addr string) {
	t := e.t
	t.Helper()
	bin := filepath.Join(t.TempDir(), "edge")
	if err := proctest.Build(bin, "edge"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(),
		"KURZ_DATABASE_URL="+e.pgDSN, "KURZ_CLICKHOUSE_URL="+e.chDSN, "KURZ_EDGE_ADDR="+addr, "KURZ_PRICE_ADDR=",
		"KURZ_BASE_URL="+e.cfg.BaseURL, "KURZ_SECRET=dashboard-e2e-secret-0123456789abcdef",
		"KURZ_CLICK_FLUSH_INTERVAL=200ms", "KURZ_SPOOL_DIR="+t.TempDir(), "KURZ_EDGE_METRICS_ADDR=",
		"KURZ_COUNTRY_HEADER="+edgeCountryHeader, "KURZ_TRUSTED_PROXIES=127.0.0.1/32", "KURZ_LOG_LEVEL=warn")
	proctest.Start(t, "the edge", cmd)
	proctest.WaitReady(t, "http://"+addr)
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

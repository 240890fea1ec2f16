package obstest

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// FreeAddr is a loopback host:port free at the time of the call, for a
// process under test to listen on.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// NoSeries fetches url with c (redirects not followed when c says so)
// and fails the test when the answer holds series of a /metrics page:
// prefix (the process's own) or the Go runtime's. It returns the status.
func NoSeries(tb testing.TB, c *http.Client, url, prefix string) int {
	tb.Helper()
	resp, err := c.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if s := string(body); strings.Contains(s, prefix) || strings.Contains(s, "go_goroutines") {
		tb.Fatalf("%s serves metrics: %d %.200q", url, resp.StatusCode, s)
	}
	return resp.StatusCode
}

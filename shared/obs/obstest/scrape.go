// Package obstest reads a running process's /metrics in tests.
package obstest

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Series maps each sample's name with its labels, exactly as written
// (`kurz_edge_requests_total{route="link",status="3xx"}`), to its value.
type Series map[string]float64

// Scrape reads http://addr/metrics and parses the Prometheus text format.
func Scrape(tb testing.TB, addr string) Series {
	tb.Helper()
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		tb.Fatalf("scrape %s: %v", addr, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("scrape %s: status %d", addr, resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		tb.Fatalf("scrape %s: Content-Type %q", addr, ct)
	}
	out := Series{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			tb.Fatalf("scrape %s: malformed line %q", addr, line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			tb.Fatalf("scrape %s: line %q: %v", addr, line, err)
		}
		if _, dup := out[line[:i]]; dup {
			tb.Fatalf("scrape %s: series %s written twice", addr, line[:i])
		}
		out[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("scrape %s: %v", addr, err)
	}
	return out
}

// Get is the value of series name, failing the test when it is absent.
func (s Series) Get(tb testing.TB, name string) float64 {
	tb.Helper()
	v, ok := s[name]
	if !ok {
		tb.Fatalf("series %s not exposed", name)
	}
	return v
}

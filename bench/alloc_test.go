//go:build !race

package main

import (
	"net"
	"runtime"
	"testing"
	"time"
)

// startCannedServer answers every request head it reads with a fixed 302
// without allocating per request, so that process-wide allocation counts
// measure the load generator alone.
func startCannedServer(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	resp := []byte("HTTP/1.1 302 Found\r\nServer: canned\r\nContent-Length: 0\r\nLocation: https://example.com/\r\n\r\n")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveCanned(c, resp)
		}
	}()
	return ln.Addr().String()
}

func serveCanned(c net.Conn, resp []byte) {
	defer c.Close()
	buf := make([]byte, 64<<10)
	matched := 0 // bytes of "\r\n\r\n" seen so far (a head may span reads)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		for _, ch := range buf[:n] {
			switch {
			case ch == "\r\n\r\n"[matched]:
				matched++
			case ch == '\r':
				matched = 1
			default:
				matched = 0
			}
			if matched == 4 {
				matched = 0
				if _, err := c.Write(resp); err != nil {
					return
				}
			}
		}
	}
}

func allocTestConfig(tb testing.TB, addr string, requests int64, rate float64) *loadConfig {
	tb.Helper()
	tables, err := loadTables("")
	if err != nil {
		tb.Fatal(err)
	}
	return &loadConfig{Addr: addr, Conns: 4, Duration: time.Minute, Requests: requests, Rate: rate, ZipfS: 1.1, ZipfV: 1, Seed: 1,
		Entries: testEntries(), Tables: tables, CountryHeader: "CF-IPCountry", XFF: true, Timeout: 5 * time.Second}
}

// mallocsOf counts the heap allocations of one run.
func mallocsOf(t *testing.T, cfg *loadConfig) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := runLoad(t.Context(), cfg)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed != cfg.Requests || len(res.Errors) > 0 {
		t.Fatalf("completed %d of %d, errors %v", res.Completed, cfg.Requests, res.Errors)
	}
	return after.Mallocs - before.Mallocs
}

// The harness must not spend the shared cores on garbage: a run of 20k
// requests allocates what a run of 2k does (setup only), in the closed
// and the open loop.
func TestRequestsDoNotAllocate(t *testing.T) {
	addr := startCannedServer(t)
	for _, rate := range []float64{0, 40_000} {
		small := mallocsOf(t, allocTestConfig(t, addr, 2_000, rate))
		large := mallocsOf(t, allocTestConfig(t, addr, 20_000, rate))
		// The canned server and the runtime allocate a little on their own.
		if perReq := (float64(large) - float64(small)) / 18_000; perReq > 0.01 {
			t.Errorf("rate %g: %.3f allocations per request (%d for 2k requests, %d for 20k), want 0", rate, perReq, small, large)
		}
	}
}

func BenchmarkRequest(b *testing.B) {
	addr := startCannedServer(b)
	cfg := allocTestConfig(b, addr, int64(b.N), 0)
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := runLoad(b.Context(), cfg); err != nil {
		b.Fatal(err)
	}
}

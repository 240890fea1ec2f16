package main

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// startRedirector serves 302 on loopback (410 for aliases starting with
// "x") and counts the requests it answered.
func startRedirector(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		n.Add(1)
		if p := ctx.Path(); len(p) > 1 && p[1] == 'x' {
			ctx.SetStatusCode(fasthttp.StatusGone)
			return
		}
		ctx.Redirect("https://example.com/", fasthttp.StatusFound)
	}}
	go srv.Serve(ln)                     //nolint:errcheck // ends with Shutdown
	t.Cleanup(func() { srv.Shutdown() }) //nolint:errcheck
	return ln.Addr().String(), &n
}

func testEntries() []entry {
	return []entry{{Alias: "a1"}, {Alias: "a2"}, {Host: "go.brand.test", Alias: "b1", Kind: KindTargeted}, {Alias: "xgone", Kind: KindExpired}}
}

func TestRunLoadCountsAddUp(t *testing.T) {
	addr, served := startRedirector(t)
	tables, err := loadTables("")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cfg  loadConfig
	}{
		{"closed loop", loadConfig{Conns: 8, Duration: time.Second}},
		{"open loop", loadConfig{Conns: 4, Duration: time.Second, Rate: 2000}},
		{"request bound", loadConfig{Conns: 4, Duration: 10 * time.Second, Requests: 5000}},
		{"sequential", loadConfig{Conns: 2, Sequential: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := served.Load()
			cfg := tc.cfg
			cfg.Addr, cfg.Entries, cfg.Tables = addr, testEntries(), tables
			cfg.ZipfS, cfg.ZipfV, cfg.Seed, cfg.CountryHeader, cfg.XFF = 1.1, 1, 1, "CF-IPCountry", true
			res, err := runLoad(context.Background(), &cfg)
			if err != nil {
				t.Fatal(err)
			}
			answered := served.Load() - before
			if len(res.Errors) > 0 {
				t.Fatalf("errors: %v", res.Errors)
			}
			if res.Completed == 0 || res.Completed != answered {
				t.Fatalf("completed %d, server answered %d", res.Completed, answered)
			}
			var byStatus, byKind int64
			for _, n := range res.Status {
				byStatus += n
			}
			for _, n := range res.ByKind {
				byKind += n
			}
			if byStatus != res.Completed || byKind != res.Completed || res.Latency.TotalCount() != res.Completed {
				t.Fatalf("status sum %d, kind sum %d, histogram %d, completed %d", byStatus, byKind, res.Latency.TotalCount(), res.Completed)
			}
			// Every 302 to a human is an expected click; 410s and non-humans are not.
			if got := res.ExpectedClicks + res.NonHuman; got != res.Status[302] {
				t.Fatalf("expected %d + non-human %d != 302s %d", res.ExpectedClicks, res.NonHuman, res.Status[302])
			}
			if res.Status[410] != res.ByKind[KindExpired] {
				t.Fatalf("410s %d, expired requests %d", res.Status[410], res.ByKind[KindExpired])
			}
			switch {
			case cfg.Sequential && res.Completed != int64(len(cfg.Entries)):
				t.Fatalf("sequential: %d requests, want %d", res.Completed, len(cfg.Entries))
			case cfg.Requests > 0 && res.Completed != cfg.Requests:
				t.Fatalf("request bound: %d requests, want %d", res.Completed, cfg.Requests)
			case cfg.Rate > 0:
				// 2000/s for 1 s: the schedule, not the server, sets the count.
				if res.Completed < 1800 || res.Completed > 2001 {
					t.Fatalf("open loop: %d requests, want about 2000", res.Completed)
				}
				if res.Service.TotalCount() != res.Completed || res.Lag.TotalCount() != res.Completed || res.HarnessLag.TotalCount() != res.Completed {
					t.Fatal("open loop: service/lag histograms incomplete")
				}
			}
		})
	}
}

package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
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
		{"uniform", loadConfig{Conns: 4, Duration: 10 * time.Second, Requests: 4000, Uniform: true}},
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
			// Every 302 (direct and targeted links) writes a click row, whoever visited.
			if res.ClickRows != res.Status[302] {
				t.Fatalf("click rows %d, 302s %d", res.ClickRows, res.Status[302])
			}
			if res.Status[410] != res.ByKind[KindExpired] {
				t.Fatalf("410s %d, expired requests %d", res.Status[410], res.ByKind[KindExpired])
			}
			switch {
			case cfg.Sequential && res.Completed != int64(len(cfg.Entries)):
				t.Fatalf("sequential: %d requests, want %d", res.Completed, len(cfg.Entries))
			case cfg.Uniform:
				// 4 links, 4000 requests: about 1000 each.
				for i, e := range cfg.Entries {
					if n := res.ByKind[e.Kind]; e.Kind != KindDirect && (n < 800 || n > 1200) {
						t.Fatalf("uniform: link %d (%s) got %d of 4000 requests", i, e.Kind, n)
					}
				}
				if n := res.ByKind[KindDirect]; n < 1700 || n > 2300 {
					t.Fatalf("uniform: the two direct links got %d of 4000 requests, want about 2000", n)
				}
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

// Uniform picks give every link the same share: the worst case for
// per-link work (every hot link clicked every second).
func TestUniformPickIsFlat(t *testing.T) {
	const n, draws = 10_000, 1_000_000
	entries := make([]entry, n)
	cfg := &loadConfig{Uniform: true, Entries: entries, Seed: 3}
	w := newWorker(0, cfg, &shared{cfg: cfg})
	counts := make([]int, n)
	for range draws {
		i, ok := w.pick()
		if !ok || i < 0 || i >= n {
			t.Fatalf("pick %d, %v", i, ok)
		}
		counts[i]++
	}
	lo, hi := draws, 0
	for _, c := range counts {
		lo, hi = min(lo, c), max(hi, c)
	}
	// 100 draws per link on average: Poisson's spread stays within 50..160
	// (a Zipf pick gives the top link tens of thousands).
	if lo < 50 || hi > 160 {
		t.Fatalf("draws per link from %d to %d, want all near 100", lo, hi)
	}
	if err := (&loadConfig{Conns: 1, Duration: time.Second, Entries: entries, Tables: &headerTables{}, Sequential: true, Uniform: true}).validate(); err == nil {
		t.Error("sequential and uniform together: want an error")
	}
	if err := (&loadConfig{Conns: 1, Duration: time.Second, Entries: entries, Tables: &headerTables{}, Uniform: true}).validate(); err != nil {
		t.Errorf("uniform needs no Zipf parameters: %v", err)
	}
}

// --hot N keeps the first N links of the kinds asked for.
func TestPrepareHot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aliases.tsv")
	src := "# owner_id=7\n-\ta1\tdirect\n-\tp1\tpassword\n-\ta2\tdirect\n-\ta3\tdirect\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		hot  int
		want []string
		err  string
	}{
		{hot: 2, want: []string{"a1", "a2"}},
		{hot: 0, want: []string{"a1", "a2", "a3"}},
		{hot: 4, err: "holds only 3 links"},
	}
	for _, tc := range tests {
		o := &runOptions{aliases: path, kinds: "direct", hot: tc.hot, procs: runtime.GOMAXPROCS(0)}
		err := o.prepare()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("hot %d: err %v, want %q", tc.hot, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("hot %d: %v", tc.hot, err)
		}
		var got []string
		for _, e := range o.load.Entries {
			got = append(got, e.Alias)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("hot %d: links %v, want %v", tc.hot, got, tc.want)
		}
	}
}

package server

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"kurz/edge/internal/catalog"
)

// BenchmarkRandomAliasFlood: real links that are not cached, visited one
// after another (each op is one such visit: its latency is ns/op and the
// real-p50/p99 metrics), while floodWorkers goroutines request random
// unknown aliases at a fixed rate in all (flood-req/s answered; the
// queries they cost, flood-queries/s; the 503s they got, flood-503/s).
// The variants, per flood rate:
//
//   - sets: the existence sets and the load gate (the defaults);
//   - gate-only: NoKeySets: every unknown alias reaches the gate and the
//     database; past the gate's queue it answers 503;
//   - none: NoKeySets and no gate, the edge before issue 14.
//
// rate 0 is the real links' normal time, without a flood; 30000/s runs
// with the sets only (the others answer a third of that at best).
//
// Run: go test -run '^$' -bench RandomAliasFlood -benchtime 2000x ./edge/internal/server/
func BenchmarkRandomAliasFlood(b *testing.B) {
	const floodWorkers = 256 // concurrent visitors of the flood
	type variant struct {
		mode string
		cc   catalog.Config
	}
	modes := []variant{
		{"sets", catalog.Config{}},
		{"gate-only", catalog.Config{NoKeySets: true}},
		{"none", catalog.Config{NoKeySets: true, MaxLoads: -1}},
	}
	for _, rate := range []float64{0, 2000, 10000, 30000} {
		for _, v := range modes {
			if (rate == 0 || rate > 10000) && v.mode != "sets" {
				continue // no flood; a rate only the sets can answer
			}
			b.Run(fmt.Sprintf("rate=%.0f/%s", rate, v.mode), func(b *testing.B) {
				benchFlood(b, v.cc, floodWorkers, rate)
			})
		}
	}
}

func benchFlood(b *testing.B, cc catalog.Config, workers int, rate float64) {
	e, src := newCountedEnv(b, cc)
	const real = 5000
	seedLinks(b, e.store, e.user, "real", real)
	startListener(b, e)
	if !cc.NoKeySets {
		waitFor(b, 10*time.Second, "existence sets built", func() bool { return e.cat.KeySets().Ready })
	}
	stop := make(chan struct{})
	counts, wait := &floodCounts{}, func() {}
	if rate > 0 {
		counts, wait = flood(e, workers, rate, stop, "/%s")
		time.Sleep(300 * time.Millisecond) // the flood in full swing
	}
	linkQueries, answered, busy := src.links.Load(), counts.total(), counts.busy.Load()
	lat := make([]time.Duration, 0, b.N)
	refused := 0
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		alias := fmt.Sprintf("real%d", i%real)
		e.cat.InvalidateLink("", alias) // a miss every time
		t0 := time.Now()
		r := e.do(req{path: "/" + alias})
		lat = append(lat, time.Since(t0))
		switch r.StatusCode() {
		case 302:
		case 503:
			refused++
		default:
			b.Fatalf("/%s: %d", alias, r.StatusCode())
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	floodQueries := src.links.Load() - linkQueries - int64(b.N-refused)
	answered, busy = counts.total()-answered, counts.busy.Load()-busy
	close(stop)
	wait()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "real-p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "real-p99-µs")
	b.ReportMetric(float64(refused), "real-503s")
	b.ReportMetric(float64(answered)/elapsed.Seconds(), "flood-req/s")
	b.ReportMetric(max(float64(floodQueries), 0)/elapsed.Seconds(), "flood-queries/s")
	b.ReportMetric(float64(busy)/elapsed.Seconds(), "flood-503/s")
}

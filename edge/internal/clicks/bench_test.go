package clicks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// BenchmarkTryPush measures the request-path hand-off on the queue path:
// each iteration pushes a hit and takes one off the queue, as a worker
// would, from GOMAXPROCS goroutines at once (the channel is shared, so this
// includes its contention).
func BenchmarkTryPush(b *testing.B) {
	p := &Pipeline{queue: make(chan click.Hit, 32768), overflow: make(chan click.Hit, 1)}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		h := testHit(1)
		for pb.Next() {
			if !p.TryPush(&h) {
				b.Error("push refused")
				return
			}
			<-p.queue
		}
	})
}

// benchHits returns a realistic mix: many visitors, a few dozen
// User-Agents, common referrers and languages, Zipf-distributed links out
// of 100k.
func benchHits(n int) []click.Hit {
	uas := make([]string, 0, 40)
	for i := range 40 {
		uas = append(uas, fmt.Sprintf("%s Build/%d", testUAs[i%len(testUAs)], i))
	}
	refs := []string{"", "", "", "https://www.google.com/", "https://t.co/x", "https://l.facebook.com/l.php", "https://www.bing.com/search?q=x", "https://news.example.org/a/1"}
	langs := []string{"en-US,en;q=0.9", "de-DE,de;q=0.9,en;q=0.8", "fr", "es-ES", ""}
	countries := []string{"US", "DE", "FR", "GB", "ES", ""}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(1, 2)), 1.1, 1, 99_999) // links out of 100k, popular ones first
	hits := make([]click.Hit, n)
	for i := range hits {
		h := &hits[i]
		h.Kind, h.Class, h.LinkID, h.OwnerID = click.KindLink, click.ClassHuman, int64(zipf.Uint64()+1), 1
		h.IP = netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}).As16()
		copy(h.Country[:], countries[i%len(countries)])
		h.SetUA([]byte(uas[i%len(uas)]))
		h.SetReferer([]byte(refs[i%len(refs)]))
		h.SetLang([]byte(langs[i%len(langs)]))
	}
	return hits
}

// BenchmarkIngest measures end-to-end ingest into the real ClickHouse:
// clicks pushed until ClickHouse acknowledged all of them, from one
// pipeline with default settings and two batch sizes. Run it with a fixed
// count:
//
//	KURZ_TEST_CLICKHOUSE_URL=... go test -run '^$' -bench Ingest -benchtime 1000000x ./edge/internal/clicks/
func BenchmarkIngest(b *testing.B) {
	for _, batch := range []int{10_000, 50_000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			conn, _ := chtest.New(b)
			p := start(b, Config{Conn: conn, SpoolDir: b.TempDir(), BatchSize: batch})
			hits := benchHits(1 << 16)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU()
			begin := time.Now()
			for i := range b.N {
				h := &hits[i&(len(hits)-1)]
				h.UnixNano = time.Now().UnixNano()
				// The benchmark paces itself to keep every click on the
				// queue path; the edge would overflow to the spool instead.
				for len(p.queue) > cap(p.queue)-64 {
					time.Sleep(100 * time.Microsecond)
				}
				if !p.TryPush(h) {
					b.Fatal("push refused")
				}
			}
			if err := p.Close(context.Background()); err != nil {
				b.Fatal(err)
			}
			elapsed := time.Since(begin)
			cpu := processCPU() - cpu0
			b.StopTimer()
			st := p.Stats()
			if st.Inserted != uint64(b.N) || st.Overflowed != 0 {
				b.Fatalf("pushed %d, stats %+v", b.N, st)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "clicks/s")
			// CPU of this process (pusher + pipeline, not ClickHouse) per click.
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/click")
		})
	}
}

// processCPU returns the user+system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kurz/edge/internal/catalog"
	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// countingSource counts the loads of single keys that reach the database;
// while held is set, link loads wait until it is cleared.
type countingSource struct {
	catalog.Source
	links, campaigns, qrs atomic.Int64
	held                  atomic.Bool
	started               atomic.Int64 // link loads begun
}

func (s *countingSource) EdgeLinkByAlias(ctx context.Context, host, alias string) (*link.EdgeLink, error) {
	s.links.Add(1)
	s.started.Add(1)
	for s.held.Load() && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	return s.Source.EdgeLinkByAlias(ctx, host, alias)
}

func (s *countingSource) EdgeRotatorBySlug(ctx context.Context, slug string) (*link.EdgeRotator, error) {
	s.campaigns.Add(1)
	return s.Source.EdgeRotatorBySlug(ctx, slug)
}

func (s *countingSource) EdgeCampaignOfUser(ctx context.Context, username, slug string, id int64) (*link.EdgeCampaign, error) {
	s.campaigns.Add(1)
	return s.Source.EdgeCampaignOfUser(ctx, username, slug, id)
}

func (s *countingSource) EdgeQRTargetByCode(ctx context.Context, code string) (*link.EdgeQRTarget, error) {
	s.qrs.Add(1)
	return s.Source.EdgeQRTargetByCode(ctx, code)
}

func (s *countingSource) EdgeQRByCode(ctx context.Context, code string) (*link.EdgeQR, error) {
	s.qrs.Add(1)
	return s.Source.EdgeQRByCode(ctx, code)
}

// newCountedEnv is newEnv with a catalog of cc over a counting source.
func newCountedEnv(t testing.TB, cc catalog.Config, opts ...envOption) (*env, *countingSource) {
	t.Helper()
	store, dsn := pgtest.Store(t)
	src := &countingSource{Source: store}
	var cat *catalog.Catalog
	withCatalog := func(c *Config) {
		cc.Log, cc.BaseHost = c.Log, "kurz.test"
		if cc.MaxBytes == 0 {
			cc.MaxBytes = 32 << 20
		}
		var err error
		if cat, err = catalog.New(src, cc); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cat.Close)
		c.Catalog = cat
	}
	e := newEnvOn(t, store, dsn, append([]envOption{withCatalog}, opts...)...)
	e.cat = cat
	return e, src
}

// seedLinks writes n direct links alias0..alias{n-1} in one statement.
func seedLinks(t testing.TB, st *pgstore.Store, user int64, prefix string, n int) {
	t.Helper()
	if _, err := pgtest.Pool(st).Exec(context.Background(),
		`INSERT INTO links (user_id, alias, long_url) SELECT $1, $2 || i, 'https://example.com/' || i FROM generate_series(0, $3::int - 1) i`,
		user, prefix, n); err != nil {
		t.Fatal(err)
	}
}

func randomAlias(rng *rand.Rand) string {
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 9)
	for i := range b {
		b[i] = chars[rng.IntN(len(chars))]
	}
	return string(b)
}

// floodCounts are a flood's answers by status.
type floodCounts struct{ notFound, busy, other atomic.Int64 }

func (c *floodCounts) total() int64 { return c.notFound.Load() + c.busy.Load() + c.other.Load() }

// flood requests paths (each a format of one random key) in turn from
// workers goroutines until stop is closed, at rate requests per second
// in all (0: each as fast as it is answered); wait waits for the workers.
func flood(e *env, workers int, rate float64, stop <-chan struct{}, paths ...string) (c *floodCounts, wait func()) {
	c = &floodCounts{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			next := time.Now()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if rate > 0 {
					next = next.Add(time.Duration(float64(workers) / rate * float64(time.Second)))
					if d := time.Until(next); d > 0 {
						time.Sleep(d)
					}
				}
				switch e.do(req{path: fmt.Sprintf(paths[i%len(paths)], randomAlias(rng))}).StatusCode() {
				case 404:
					c.notFound.Add(1)
				case 503:
					c.busy.Add(1)
				default:
					c.other.Add(1)
				}
			}
		})
	}
	return c, wg.Wait
}

// A flood of random aliases, slugs and codes reaches PostgreSQL not once
// while the existence sets are built; real links that are not cached
// keep being served, each with its one query.
func TestRandomAliasFloodSparesRealLinks(t *testing.T) {
	e, src := newCountedEnv(t, catalog.Config{})
	const real = 200
	seedLinks(t, e.store, e.user, "real", real)
	startListener(t, e)
	waitFor(t, 5*time.Second, "existence sets built", func() bool { return e.cat.KeySets().Ready })

	stop := make(chan struct{})
	counts, wait := flood(e, 4, 0, stop, "/%s", "/r/%s", "/u/alice/%s", "/q/%s", "/qr/%s")
	time.Sleep(100 * time.Millisecond)
	var slowest time.Duration
	for i := range real {
		start := time.Now()
		expect(t, e.do(req{path: fmt.Sprintf("/real%d", i)}), 302, fmt.Sprintf("https://example.com/%d", i))
		slowest = max(slowest, time.Since(start))
	}
	close(stop)
	wait()
	nf, other := counts.notFound.Load(), counts.total()-counts.notFound.Load()
	t.Logf("flood: %d answers 404, %d others; slowest real link %v", nf, other, slowest)
	if nf < 500 || other != 0 {
		t.Fatalf("flood: %d answers 404, %d others; want only 404s (at least 500)", nf, other)
	}
	if n := src.links.Load(); n != real {
		t.Fatalf("%d link queries for %d real links and %d random keys, want %d", n, real, nf, real)
	}
	if n := src.campaigns.Load() + src.qrs.Load(); n != 0 {
		t.Fatalf("random slugs and codes cost %d queries", n)
	}
}

// With every load turn taken and the queue full, a miss answers 503 with
// Retry-After: 1 at once, while cached links keep answering.
func TestLoadQueueFullAnswers503(t *testing.T) {
	e, src := newCountedEnv(t, catalog.Config{MaxLoads: 1, LoadQueue: 1, LoadTimeout: 5 * time.Second})
	e.addLink(linkRow{Alias: "cached", URL: "https://example.com/cached"})
	e.addLink(linkRow{Alias: "cold", URL: "https://example.com/cold"})
	expect(t, e.do(req{path: "/cached"}), 302, "https://example.com/cached")
	e.cat.Wait()

	// Whether /cached took a load of its own depends on the warm-up's
	// timing: count from here.
	base := src.started.Load()
	src.held.Store(true)
	var wg sync.WaitGroup
	for _, alias := range []string{"held1", "held2"} { // one running, one queued
		wg.Go(func() { e.do(req{path: "/" + alias}) })
	}
	waitFor(t, 5*time.Second, "a load running", func() bool { return src.started.Load() == base+1 })
	time.Sleep(50 * time.Millisecond)

	start := time.Now()
	r := e.do(req{path: "/cold"})
	took := time.Since(start)
	expect(t, r, 503, "")
	if ra := string(r.Header.Peek("Retry-After")); ra != "1" {
		t.Fatalf("Retry-After %q, want 1", ra)
	}
	// At once: not after waiting for a turn (LoadTimeout, 5 s). The bound
	// is loose so that a busy machine cannot fail it; waiting would not
	// pass it.
	if took > time.Second {
		t.Fatalf("503 took %v: it waited for a load turn", took)
	}
	expect(t, e.do(req{path: "/cached"}), 302, "https://example.com/cached")

	src.held.Store(false)
	wg.Wait()
	expect(t, e.do(req{path: "/cold"}), 302, "https://example.com/cold")
}

package catalog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kurz/edge/internal/listen"
	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// loadCounter counts the loads of single keys the catalog sends to the
// database.
type loadCounter struct {
	Source
	links, campaigns, qrs atomic.Int64
}

func (s *loadCounter) EdgeLinkByAlias(ctx context.Context, host, alias string) (*link.EdgeLink, error) {
	s.links.Add(1)
	return s.Source.EdgeLinkByAlias(ctx, host, alias)
}

func (s *loadCounter) EdgeRotatorBySlug(ctx context.Context, slug string) (*link.EdgeRotator, error) {
	s.campaigns.Add(1)
	return s.Source.EdgeRotatorBySlug(ctx, slug)
}

func (s *loadCounter) EdgeCampaignOfUser(ctx context.Context, username, slug string, id int64) (*link.EdgeCampaign, error) {
	s.campaigns.Add(1)
	return s.Source.EdgeCampaignOfUser(ctx, username, slug, id)
}

func (s *loadCounter) EdgeQRTargetByCode(ctx context.Context, code string) (*link.EdgeQRTarget, error) {
	s.qrs.Add(1)
	return s.Source.EdgeQRTargetByCode(ctx, code)
}

func (s *loadCounter) EdgeQRByCode(ctx context.Context, code string) (*link.EdgeQR, error) {
	s.qrs.Add(1)
	return s.Source.EdgeQRByCode(ctx, code)
}

func (s *loadCounter) total() int64 { return s.links.Load() + s.campaigns.Load() + s.qrs.Load() }

// keyed is a catalog over a counting source kept current by a running
// listener, with its existence sets built.
type keyed struct {
	c    *Catalog
	src  *loadCounter
	st   *pgstore.Store
	l    *listen.Listener
	user int64
}

func newKeyed(t *testing.T, cfg Config) *keyed {
	t.Helper()
	st, _ := pgtest.Store(t)
	k := &keyed{st: st}
	if err := pgtest.Pool(st).QueryRow(context.Background(), `INSERT INTO users (email, username, plan, api_key_hash)
		VALUES ('k@example.com', 'Keyed', 'free', 'k') RETURNING id`).Scan(&k.user); err != nil {
		t.Fatal(err)
	}
	k.src = &loadCounter{Source: st}
	cfg.Log = slog.New(slog.DiscardHandler)
	c, err := New(k.src, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	k.c = c
	k.l = listen.New(st, c, cfg.Log)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); k.l.Run(ctx) }() //nolint:errcheck // returns ctx's error
	t.Cleanup(func() { cancel(); <-done })
	within(t, 2*time.Second, "listener up", k.l.Up)
	if !cfg.NoKeySets {
		within(t, 5*time.Second, "existence sets built", func() bool { return c.KeySets().Ready })
	}
	return k
}

// present reports whether the catalog finds the link (loading it).
func (k *keyed) present(t *testing.T, alias string) bool {
	t.Helper()
	l, err := k.c.LoadLink(context.Background(), "", alias)
	if err != nil {
		t.Fatalf("load %q: %v", alias, err)
	}
	return !l.Missing()
}

func randomKey(rng *rand.Rand) string {
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 8)
	for i := range b {
		b[i] = chars[rng.IntN(len(chars))]
	}
	return string(b)
}

// Unknown aliases, rotator slugs, list keys and QR codes are answered
// from memory once the sets are built; existing ones are still found.
// Without the sets the same flood costs one query per key.
func TestUnknownKeysCostNoQuery(t *testing.T) {
	const n = 500
	for _, tt := range []struct {
		name    string
		cfg     Config
		queries int64 // loads of the flood
	}{
		{"sets", Config{}, 0},
		{"no sets", Config{NoKeySets: true}, 4 * n},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := newKeyed(t, tt.cfg)
			db := pgtest.Pool(k.st)
			ctx := context.Background()
			exec(t, k.st, `INSERT INTO links (user_id, alias, long_url) VALUES ($1, 'real', 'https://example.com/')`, k.user)
			var camp int64
			if err := db.QueryRow(ctx, `INSERT INTO campaigns (user_id, name, slug) VALUES ($1, 'c', 'Spring') RETURNING id`, k.user).Scan(&camp); err != nil {
				t.Fatal(err)
			}
			exec(t, k.st, `INSERT INTO qr_codes (user_id, code, type, data, content, target_url) VALUES ($1, 'qrreal', 'link', '"x"', 'x', 'https://example.com/')`, k.user)
			within(t, time.Second, "new keys known", func() bool {
				_, found, _ := k.c.RotatorCampaign("spring")
				_, qfound, _ := k.c.QRScan("qrreal")
				return k.present(t, "real") && found && qfound
			})

			before := k.src.total()
			rng := rand.New(rand.NewPCG(5, 6))
			for range n {
				key := randomKey(rng)
				if k.present(t, key) {
					t.Fatalf("random alias %q found", key)
				}
				if _, found, err := k.c.RotatorCampaign(key); found || err != nil {
					t.Fatalf("random slug %q: found %v, %v", key, found, err)
				}
				if _, found, err := k.c.UserCampaign("keyed", key); found || err != nil {
					t.Fatalf("random list key %q: found %v, %v", key, found, err)
				}
				if _, found, err := k.c.QRScan(key); found || err != nil {
					t.Fatalf("random qr code %q: found %v, %v", key, found, err)
				}
			}
			if q := k.src.total() - before; q != tt.queries {
				t.Fatalf("%d random keys of each kind cost %d queries, want %d", n, q, tt.queries)
			}

			// What exists is found, under every form a visitor may use.
			k.c.links.invalidate("", "real")
			if !k.present(t, "real") {
				t.Fatal("existing link not found")
			}
			for _, ref := range [][2]string{{"", "SPRING"}, {"KEYED", "spring"}, {"keyed", fmt.Sprint(camp)}} {
				var found bool
				var err error
				if ref[0] == "" {
					_, found, err = k.c.RotatorCampaign(ref[1])
				} else {
					_, found, err = k.c.UserCampaign(ref[0], ref[1])
				}
				if !found || err != nil {
					t.Fatalf("campaign %q: found %v, %v", ref, found, err)
				}
			}
		})
	}
}

// The sets follow the notices: a link, campaign or QR code created after
// the build is found; a deleted or renamed one is unknown without a query;
// three renames in one transaction end where the last one did.
func TestKeySetsFollowNotices(t *testing.T) {
	k := newKeyed(t, Config{})
	ctx := context.Background()
	db := pgtest.Pool(k.st)
	exec(t, k.st, `INSERT INTO links (user_id, alias, long_url) VALUES ($1, 'fresh', 'https://example.com/')`, k.user)
	within(t, time.Second, "new link found", func() bool { return k.present(t, "fresh") })

	// A listener that reconnects makes the sets unknown until they are
	// rebuilt (Lost, then Resync): lookups meanwhile rightly ask the
	// database. On the loaded CI machine that happened mid-check, so the
	// check is made with current sets and repeated if the session changed
	// during it; the claim stays "no query once the set is current".
	// A lookup may see the change through a query before the notice has
	// reached the sets, so each check first waits until the write's
	// notices (n of them since changes) have been applied.
	noQuery := func(what string, changes, n uint64, fn func() bool) {
		t.Helper()
		before := k.src.total()
		within(t, time.Second, what, fn)
		within(t, 5*time.Second, what+": notices applied", func() bool { return k.l.Stats().Changes >= changes+n })
		for range 3 {
			within(t, 5*time.Second, "existence sets current", func() bool { return k.l.Up() && k.c.KeySets().Ready })
			k.c.Wait()
			connects, before2 := k.l.Connects(), k.src.total()
			if !fn() {
				t.Fatalf("%s: not stable", what)
			}
			q := k.src.total() - before2
			if k.l.Connects() != connects || !k.c.KeySets().Ready {
				t.Logf("%s: the listener reconnected during the check; again", what)
				continue
			}
			if q != 0 {
				t.Fatalf("%s: %d queries (%d while waiting)", what, q, before2-before)
			}
			return
		}
		t.Fatalf("%s: the listener kept reconnecting", what)
	}
	changes := k.l.Stats().Changes
	exec(t, k.st, `UPDATE links SET alias = 'renamed' WHERE alias = 'fresh'`)
	noQuery("old alias unknown", changes, 1, func() bool { return !k.present(t, "fresh") })
	within(t, time.Second, "new alias found", func() bool { return k.present(t, "renamed") })
	changes = k.l.Stats().Changes
	exec(t, k.st, `DELETE FROM links WHERE alias = 'renamed'`)
	noQuery("deleted link unknown", changes, 1, func() bool { return !k.present(t, "renamed") })

	changes = k.l.Stats().Changes
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO links (user_id, alias, long_url) VALUES ($1, 'a', 'https://example.com/')`,
		`UPDATE links SET alias = 'b' WHERE alias = 'a' AND user_id = $1`,
		`UPDATE links SET alias = 'a' WHERE alias = 'b' AND user_id = $1`,
		`UPDATE links SET alias = 'b' WHERE alias = 'a' AND user_id = $1`,
	} {
		if _, err := tx.Exec(ctx, q, k.user); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	within(t, time.Second, "b after a -> b -> a -> b", func() bool { return k.present(t, "b") })
	noQuery("a after a -> b -> a -> b", changes, 4, func() bool { return !k.present(t, "a") })

	var camp int64
	if err := db.QueryRow(ctx, `INSERT INTO campaigns (user_id, name, slug) VALUES ($1, 'c', 'first') RETURNING id`, k.user).Scan(&camp); err != nil {
		t.Fatal(err)
	}
	rotator := func(slug string) bool {
		_, found, err := k.c.RotatorCampaign(slug)
		if err != nil {
			t.Fatal(err)
		}
		return found
	}
	list := func(ref string) bool {
		_, found, err := k.c.UserCampaign("keyed", ref)
		if err != nil {
			t.Fatal(err)
		}
		return found
	}
	within(t, time.Second, "new campaign found", func() bool { return rotator("first") && list("first") && list(fmt.Sprint(camp)) })
	changes = k.l.Stats().Changes
	exec(t, k.st, `UPDATE campaigns SET slug = 'second' WHERE id = $1`, camp)
	within(t, time.Second, "renamed campaign found", func() bool { return rotator("second") && list("second") })
	noQuery("old slug unknown", changes, 1, func() bool { return !rotator("first") && !list("first") })
	changes = k.l.Stats().Changes
	exec(t, k.st, `DELETE FROM campaigns WHERE id = $1`, camp)
	noQuery("deleted campaign unknown", changes, 1, func() bool { return !rotator("second") && !list("second") && !list(fmt.Sprint(camp)) })

	exec(t, k.st, `INSERT INTO qr_codes (user_id, code, type, data, content) VALUES ($1, 'qnew', 'text', '"x"', 'x')`, k.user)
	qr := func() bool {
		_, found, err := k.c.QRScan("qnew")
		if err != nil {
			t.Fatal(err)
		}
		return found
	}
	within(t, time.Second, "new qr code found", qr)
	changes = k.l.Stats().Changes
	exec(t, k.st, `DELETE FROM qr_codes WHERE code = 'qnew'`)
	noQuery("deleted qr code unknown", changes, 1, func() bool { return !qr() })
}

// While the listener is down the sets do not answer (a link created then
// would be a wrong 404): misses ask the database. The resync after the
// reconnect rebuilds them, with what changed meanwhile.
func TestKeySetsStaleUntilResync(t *testing.T) {
	k := newKeyed(t, Config{})
	k.c.Lost() // as the listener does when its session ends
	if k.c.KeySets().Ready {
		t.Fatal("sets still answer after the listener lost its session")
	}
	before := k.src.links.Load()
	if k.present(t, "unknown") {
		t.Fatal("unknown alias found")
	}
	if k.src.links.Load() == before {
		t.Fatal("a stale set answered an unknown alias")
	}
	// Written while "down": the notice is delivered but the stale set
	// cannot use it; the rebuild's scan finds the link.
	exec(t, k.st, `INSERT INTO links (user_id, alias, long_url) VALUES ($1, 'missed', 'https://example.com/')`, k.user)
	exec(t, k.st, `INSERT INTO campaigns (user_id, name, slug) VALUES ($1, 'c', 'MissedSlug')`, k.user)
	exec(t, k.st, `INSERT INTO qr_codes (user_id, code, type, data, content) VALUES ($1, 'qmissed', 'text', '"x"', 'x')`, k.user)
	time.Sleep(100 * time.Millisecond)
	k.c.Resync(context.Background())
	within(t, 5*time.Second, "sets rebuilt", func() bool { return k.c.KeySets().Ready })
	if !k.present(t, "missed") {
		t.Fatal("a link created while the listener was down is unknown after the resync")
	}
	_, rot, err1 := k.c.RotatorCampaign("missedslug")
	_, list, err2 := k.c.UserCampaign("keyed", "missedSLUG")
	_, qr, err3 := k.c.QRScan("qmissed")
	if !rot || !list || !qr || errors.Join(err1, err2, err3) != nil {
		t.Fatalf("created while the listener was down, unknown after the resync: rotator found %v, list %v, qr %v (%v)",
			rot, list, qr, errors.Join(err1, err2, err3))
	}

	// The real thing: the listener's connection is killed, it reconnects,
	// resyncs, and the sets answer again.
	var n int
	err := pgtest.Pool(k.st).QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE query LIKE 'LISTEN%' AND datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n)
	if err != nil || n != 1 {
		t.Fatalf("terminated %d listeners: %v", n, err)
	}
	within(t, 3*time.Second, "reconnect", func() bool { return k.l.Connects() >= 2 && k.l.Up() })
	within(t, 5*time.Second, "sets rebuilt after the reconnect", func() bool { return k.c.KeySets().Ready })
	before = k.src.links.Load()
	if k.present(t, "unknown2") || k.src.links.Load() != before {
		t.Fatal("rebuilt set did not answer an unknown alias from memory")
	}
	if ks := k.c.KeySets(); ks.Links != 1 || ks.Campaigns != 3 || ks.QRs != 1 || ks.Bytes <= 0 {
		t.Fatalf("sets after the rebuild: %+v", ks)
	}
}

// blockingSource holds every link load until released.
type blockingSource struct {
	Source
	release chan struct{}
	started atomic.Int64
}

func (s *blockingSource) EdgeLinkByAlias(ctx context.Context, host, alias string) (*link.EdgeLink, error) {
	s.started.Add(1)
	select {
	case <-s.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Source.EdgeLinkByAlias(ctx, host, alias)
}

// Past MaxLoads running and LoadQueue waiting, a miss is refused at once
// with ErrBusy; the loads admitted complete once the database answers.
func TestLoadGateRefusesPastQueue(t *testing.T) {
	st, _ := pgtest.Store(t)
	src := &blockingSource{Source: st, release: make(chan struct{})}
	c, err := New(src, Config{Log: slog.New(slog.DiscardHandler), MaxLoads: 2, LoadQueue: 2, LoadTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := range 4 {
		wg.Go(func() {
			_, err := c.LoadLink(ctx, "", fmt.Sprintf("held%d", i))
			errs <- err
		})
	}
	within(t, time.Second, "two loads running", func() bool { return src.started.Load() == 2 })
	time.Sleep(50 * time.Millisecond) // the other two wait in the queue
	start := time.Now()
	_, err = c.LoadLink(ctx, "", "one-too-many")
	if !errors.Is(err, ErrBusy) || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("fifth load: %v, want ErrBusy", err)
	}
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Fatalf("refusal took %v", d)
	}
	if c.LoadsRefused() != 1 {
		t.Fatalf("refused %d, want 1", c.LoadsRefused())
	}
	close(src.release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("an admitted load failed: %v", err)
		}
	}
}

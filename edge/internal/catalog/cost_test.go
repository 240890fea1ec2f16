package catalog

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"kurz/edge/internal/listen"
	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// countingSource counts the catalog's queries.
type countingSource struct {
	Source
	mu    sync.Mutex
	calls map[string]int
}

func (s *countingSource) add(name string) {
	s.mu.Lock()
	s.calls[name]++
	s.mu.Unlock()
}

func (s *countingSource) count(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[name]
}

func (s *countingSource) EdgeLinkKeys(ctx context.Context, ids []int64, fn func(host, alias string)) error {
	s.add("EdgeLinkKeys")
	return s.Source.EdgeLinkKeys(ctx, ids, fn)
}

func (s *countingSource) EdgeLinkKeysUsing(ctx context.Context, obj pgstore.Object, id int64, fn func(host, alias string)) error {
	s.add("EdgeLinkKeysUsing")
	return s.Source.EdgeLinkKeysUsing(ctx, obj, id, fn)
}

func (s *countingSource) EdgeRotatorBySlug(ctx context.Context, slug string) (*link.EdgeRotator, error) {
	s.add("campaign " + slug)
	return s.Source.EdgeRotatorBySlug(ctx, slug)
}

func (s *countingSource) EdgeLinkByAlias(ctx context.Context, host, alias string) (*link.EdgeLink, error) {
	s.add("EdgeLinkByAlias")
	return s.Source.EdgeLinkByAlias(ctx, host, alias)
}

// listening returns a catalog over a counting source, kept current by a
// running listener, and the store to write to.
func listening(t *testing.T) (*Catalog, *countingSource, *pgstore.Store, int64) {
	t.Helper()
	st, _ := pgtest.Store(t)
	var uid int64
	err := pgtest.Pool(st).QueryRow(context.Background(), `INSERT INTO users (email, username, plan, api_key_hash)
		VALUES ('c@example.com', 'cost', 'free', 'k') RETURNING id`).Scan(&uid)
	if err != nil {
		t.Fatal(err)
	}
	src := &countingSource{Source: st, calls: map[string]int{}}
	log := slog.New(slog.DiscardHandler)
	c, err := New(src, Config{Log: log, MaxBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	l := listen.New(st, c, log)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); l.Run(ctx) }() //nolint:errcheck // returns ctx's error
	t.Cleanup(func() { cancel(); <-done })
	within(t, 2*time.Second, "listener up", l.Up)
	return c, src, st, uid
}

func within(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func exec(t *testing.T, st *pgstore.Store, sql string, args ...any) {
	t.Helper()
	if _, err := pgtest.Pool(st).Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// A link write drops only the campaigns the link is in or was in: the
// other cached campaigns are not loaded again.
func TestLinkWriteInvalidatesOnlyItsCampaigns(t *testing.T) {
	c, src, st, uid := listening(t)
	camps := map[string]int64{}
	for _, slug := range []string{"spring", "summer", "autumn"} {
		var id int64
		if err := pgtest.Pool(st).QueryRow(context.Background(),
			`INSERT INTO campaigns (user_id, name, slug) VALUES ($1, $2, $2) RETURNING id`, uid, slug).Scan(&id); err != nil {
			t.Fatal(err)
		}
		camps[slug] = id
		exec(t, st, `INSERT INTO links (user_id, alias, long_url, campaign_id) VALUES ($1, $2, 'https://example.com/', $3)`,
			uid, slug+"1", id)
	}
	first := func(slug string) string {
		rot, found, err := c.RotatorCampaign(slug)
		if err != nil || !found || rot.Len() == 0 {
			t.Fatalf("campaign %s: found %v, %v", slug, found, err)
		}
		_, alias := rot.Key(0)
		return alias
	}
	loads := func() map[string]int {
		return map[string]int{"spring": src.count("campaign spring"), "summer": src.count("campaign summer"), "autumn": src.count("campaign autumn")}
	}
	settle := func() {
		// Let the links' own notices of the set-up arrive, then cache every campaign.
		time.Sleep(300 * time.Millisecond)
		for slug := range camps {
			first(slug)
		}
		c.Wait()
	}
	settle()
	before := loads()

	exec(t, st, `UPDATE links SET alias = 'spring1x' WHERE alias = 'spring1'`)
	within(t, time.Second, "spring reloaded", func() bool { return first("spring") == "spring1x" })
	time.Sleep(100 * time.Millisecond)
	first("summer")
	first("autumn")
	if got := loads(); got["summer"] != before["summer"] || got["autumn"] != before["autumn"] {
		t.Fatalf("loads before %v, after a write of a spring link %v: other campaigns were dropped", before, got)
	}

	// Moving a link drops the campaign it left and the one it joined.
	c.Wait()
	before = loads()
	exec(t, st, `UPDATE links SET campaign_id = $1 WHERE alias = 'spring1x'`, camps["summer"])
	within(t, time.Second, "summer reloaded", func() bool {
		rot, _, _ := c.RotatorCampaign("summer")
		return rot.Len() == 2
	})
	within(t, time.Second, "spring reloaded", func() bool {
		rot, _, _ := c.RotatorCampaign("spring")
		return rot.Len() == 0
	})
	first("autumn")
	if got := loads(); got["autumn"] != before["autumn"] {
		t.Fatalf("loads before %v, after moving a link between spring and summer %v: autumn was dropped", before, got)
	}
}

// Deleting a pixel used by many cached links drops all of them at the
// cost of one query, not one per link; other links stay cached.
func TestPixelDeleteCostsOneQuery(t *testing.T) {
	c, src, st, uid := listening(t)
	const n = 300
	var px int64
	if err := pgtest.Pool(st).QueryRow(context.Background(),
		`INSERT INTO pixels (user_id, type, name, tag) VALUES ($1, 'gtmpixel', 'p', 'GTM-1') RETURNING id`, uid).Scan(&px); err != nil {
		t.Fatal(err)
	}
	exec(t, st, `INSERT INTO links (user_id, alias, long_url) SELECT $1, 'p' || i, 'https://example.com/' FROM generate_series(1, $2::int) i`, uid, n)
	exec(t, st, `INSERT INTO links (user_id, alias, long_url) VALUES ($1, 'bystander', 'https://example.com/')`, uid)
	exec(t, st, `INSERT INTO link_pixels (link_id, pixel_id) SELECT id, $1 FROM links WHERE alias LIKE 'p%'`, px)
	time.Sleep(300 * time.Millisecond) // the set-up's own notices
	ctx := context.Background()
	for i := 1; i <= n; i++ {
		l, err := c.LoadLink(ctx, "", fmt.Sprintf("p%d", i))
		if err != nil || len(l.Pixels) != 1 {
			t.Fatalf("p%d: %v, %v", i, l, err)
		}
	}
	if _, err := c.LoadLink(ctx, "", "bystander"); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	before := src.count("EdgeLinkKeys") + src.count("EdgeLinkKeysUsing")

	exec(t, st, `DELETE FROM pixels WHERE id = $1`, px)
	within(t, 5*time.Second, "every link of the pixel dropped", func() bool {
		for i := 1; i <= n; i++ {
			if _, ok := c.Link("", fmt.Appendf(nil, "p%d", i)); ok {
				return false
			}
		}
		return true
	})
	time.Sleep(200 * time.Millisecond)
	if q := src.count("EdgeLinkKeys") + src.count("EdgeLinkKeysUsing") - before; q != 1 {
		t.Fatalf("%d queries to drop the %d links of a deleted pixel, want 1", q, n)
	}
	if _, ok := c.Link("", []byte("bystander")); !ok {
		t.Fatal("a link without the pixel was dropped")
	}
	if l, err := c.LoadLink(ctx, "", "p1"); err != nil || len(l.Pixels) != 0 {
		t.Fatalf("p1 after the delete: %v, %v", l, err)
	}
}

// A campaign write drops that campaign's entries and the keys it is
// reached by (a new slug's cached "no such campaign" too), not every
// cached campaign on the edge.
func TestCampaignWriteInvalidatesOnlyItself(t *testing.T) {
	c, src, st, uid := listening(t)
	ids := map[string]int64{}
	for _, slug := range []string{"winter", "fall"} {
		var id int64
		if err := pgtest.Pool(st).QueryRow(context.Background(),
			`INSERT INTO campaigns (user_id, name, slug) VALUES ($1, $2, $2) RETURNING id`, uid, slug).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids[slug] = id
	}
	time.Sleep(300 * time.Millisecond) // the set-up's notices
	for _, slug := range []string{"winter", "fall"} {
		if _, found, err := c.RotatorCampaign(slug); !found || err != nil {
			t.Fatalf("%s: found %v, %v", slug, found, err)
		}
	}
	if _, found, _ := c.RotatorCampaign("winter-new"); found {
		t.Fatal("winter-new exists before it was created")
	}
	c.Wait()
	fallLoads := src.count("campaign fall")

	exec(t, st, `UPDATE campaigns SET slug = 'winter-new' WHERE id = $1`, ids["winter"])
	within(t, time.Second, "the new slug", func() bool {
		_, found, _ := c.RotatorCampaign("winter-new")
		return found
	})
	within(t, time.Second, "the old slug gone", func() bool {
		_, found, _ := c.RotatorCampaign("winter")
		return !found
	})
	if _, found, _ := c.RotatorCampaign("fall"); !found {
		t.Fatal("fall lost")
	}
	if got := src.count("campaign fall"); got != fallLoads {
		t.Fatalf("fall loaded %d times after a write of winter, want %d: every campaign was dropped", got, fallLoads)
	}
}

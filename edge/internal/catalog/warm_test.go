package catalog

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"unsafe"

	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
	"kurz/shared/target"
)

// newTestCache returns a cache over a fresh database holding n direct
// links w0..w{n-1} to https://example.com/{i}.
func newTestCache(t *testing.T, n int) (*Catalog, *pgstore.Store) {
	t.Helper()
	store, _ := pgtest.Store(t)
	ctx := context.Background()
	var uid int64
	err := pgtest.Pool(store).QueryRow(ctx, `INSERT INTO users (email, username, plan, api_key_hash)
		VALUES ('w@example.com', 'warm', 'free', 'k') RETURNING id`).Scan(&uid)
	if err != nil {
		t.Fatal(err)
	}
	_, err = pgtest.Pool(store).Exec(ctx, `INSERT INTO links (user_id, alias, long_url)
		SELECT $1, 'w' || i, 'https://example.com/' || i FROM generate_series(0, $2 - 1) i`, uid, n)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(store, Config{Log: slog.New(slog.DiscardHandler), MaxBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, store
}

func TestWarmCachesEveryLink(t *testing.T) {
	const n = 3000 // several batches, more than ristretto's write buffer takes at once
	c, _ := newTestCache(t, n)
	c.MarkWarming()
	if !c.Warming() {
		t.Fatal("Warming false after MarkWarming")
	}
	st, err := c.Warm(context.Background(), n+10)
	if err != nil {
		t.Fatal(err)
	}
	if c.Warming() {
		t.Error("Warming still true after Warm")
	}
	if st.Links != n || st.Skipped != 0 {
		t.Fatalf("stats %+v, want %d links, 0 skipped", st, n)
	}
	for i := range n {
		l, ok := c.Link("", fmt.Appendf(nil, "w%d", i))
		if !ok {
			t.Fatalf("w%d not cached", i)
		}
		if want := fmt.Sprintf("https://example.com/%d", i); l.Dest() != want || !l.Plain {
			t.Fatalf("w%d: Dest %q Plain %v, want %q, plain", i, l.Dest(), l.Plain, want)
		}
	}
}

func TestWarmStopsAtLimit(t *testing.T) {
	c, _ := newTestCache(t, 50)
	st, err := c.Warm(context.Background(), 20)
	if err != nil {
		t.Fatal(err)
	}
	if st.Links != 20 {
		t.Fatalf("warmed %d links, want 20", st.Links)
	}
}

// A change notified while the warm-up streams must win over the row the
// warm-up read before it.
func TestWarmInvalidationWins(t *testing.T) {
	c, store := newTestCache(t, 100)
	first := true
	var changed string
	c.warm.rowHook = func(row *link.EdgeLink) {
		if !first {
			return
		}
		first = false
		// Rows arrive most recent first; change a link the stream has
		// already read, as an admin write + NOTIFY would.
		changed = row.Alias
		if _, err := pgtest.Pool(store).Exec(context.Background(),
			`UPDATE links SET long_url = 'https://example.com/new' WHERE alias = $1`, changed); err != nil {
			t.Error(err)
		}
		c.InvalidateLink("", changed)
	}
	if _, err := c.Warm(context.Background(), 1000); err != nil {
		t.Fatal(err)
	}
	if l, ok := c.Link("", []byte(changed)); ok && l.Dest() != "https://example.com/new" {
		t.Fatalf("%s cached with the warm-up's stale row: %q", changed, l.Dest())
	}
	l, err := c.LoadLink(context.Background(), "", changed)
	if err != nil || l.Dest() != "https://example.com/new" {
		t.Fatalf("load after warm-up: %v %v", l, err)
	}
}

// A Clear (listener resync) during the warm-up restarts it: nothing read
// before the Clear stays cached, and the restart caches everything.
func TestWarmRestartsAfterClear(t *testing.T) {
	c, _ := newTestCache(t, 100)
	clears := 0
	c.warm.rowHook = func(*link.EdgeLink) {
		if clears == 0 {
			clears++
			c.links.clear()
		}
	}
	st, err := c.Warm(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if clears != 1 || st.Links != 100 {
		t.Fatalf("clears %d, links %d; want 1 clear and 100 links from the restart", clears, st.Links)
	}
}

func TestInvalidateLinksResolvesInDatabase(t *testing.T) {
	c, store := newTestCache(t, 5)
	if _, err := c.Warm(context.Background(), 10); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := pgtest.Pool(store).QueryRow(context.Background(), `SELECT id FROM links WHERE alias = 'w3'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	c.invalidateLinks(context.Background(), []int64{id})
	c.Wait()
	if _, ok := c.Link("", []byte("w3")); ok {
		t.Fatal("w3 still cached after invalidateLinks")
	}
	if _, ok := c.Link("", []byte("w2")); !ok {
		t.Fatal("invalidateLinks dropped another link")
	}
	c.invalidateLinks(context.Background(), []int64{1 << 40}) // unknown id: nothing happens
	if _, ok := c.Link("", []byte("w2")); !ok {
		t.Fatal("an unknown id dropped a link")
	}
}

// The 1M-link memory budget (edge/PERFORMANCE.md) counts on a 64-byte Link.
func TestLinkSize(t *testing.T) {
	if n := unsafe.Sizeof(Link{}); n > 64 {
		t.Fatalf("Link is %d bytes, want <= 64", n)
	}
}

// TestWarmCompilesLikeALoad: a link bulk-loaded by the warm-up is the same
// as the link a miss loads, whatever it carries (branded host, rules,
// password, meta tags, deep links, parameters); the warm-up packs strings
// into slabs, a load does not.
func TestWarmCompilesLikeALoad(t *testing.T) {
	c, store := newTestCache(t, 0)
	ctx := context.Background()
	db := pgtest.Pool(store)
	var uid int64
	if err := db.QueryRow(ctx, `SELECT id FROM users`).Scan(&uid); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `INSERT INTO domains (user_id, host, domain, redirect_404) VALUES
		($1, 'go.brand.test', 'https://go.brand.test', 'https://brand.test/404')`, uid); err != nil {
		t.Fatal(err)
	}
	_, err := db.Exec(ctx, `INSERT INTO links (user_id, host, alias, long_url, password_hash, meta_title, meta_description,
			deeplink_ios, deeplink_android, geo_targets, device_targets, lang_targets, parameters)
		SELECT $1, CASE WHEN i % 2 = 0 THEN 'go.brand.test' ELSE '' END, 'r' || i, 'https://example.com/p/' || i || '?a=1',
			CASE WHEN i % 3 = 0 THEN 'hash' || i ELSE '' END, 'Title ' || i, '',
			CASE WHEN i % 4 = 0 THEN 'https://apps.example.com/ios' ELSE '' END, '',
			jsonb_build_array(jsonb_build_object('location', 'DE', 'link', 'https://de.example.com/' || i)),
			'[{"device": "android", "link": "https://play.example.com/app"}]',
			jsonb_build_array(jsonb_build_object('language', 'es', 'link', 'https://es.example.com/' || i)),
			CASE WHEN i % 5 = 0 THEN '[{"name": "utm_source", "value": "kurz"}]'::jsonb ELSE '[]' END
		FROM generate_series(0, 99) i`, uid)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := c.Warm(ctx, 1000); err != nil || st.Links != 100 {
		t.Fatalf("warm: %+v, %v", st, err)
	}
	facts := []target.Facts{
		{Country: [2]byte{'D', 'E'}}, {Device: target.DeviceAndroid}, {Device: target.DeviceIPhone},
		{AcceptLanguage: []byte("es-MX,es;q=0.9")}, {Country: [2]byte{'F', 'R'}},
	}
	for i := range 100 {
		host := ""
		if i%2 == 0 {
			host = "go.brand.test"
		}
		alias := fmt.Sprintf("r%d", i)
		warm, ok := c.Link(host, []byte(alias))
		if !ok {
			t.Fatalf("%s/%s not cached by the warm-up", host, alias)
		}
		row, err := store.EdgeLinkByAlias(ctx, host, alias)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := Compile(row)
		if err != nil {
			t.Fatal(err)
		}
		if warm.Host() != want.Host() || warm.Alias() != want.Alias() || warm.Dest() != want.Dest() ||
			warm.PasswordHash != want.PasswordHash || warm.MetaTitle != want.MetaTitle ||
			warm.Redirect404 != want.Redirect404 || warm.Plain != want.Plain || warm.Uses != want.Uses {
			t.Fatalf("%s/%s: warm-up %+v\n%+v\nload %+v\n%+v", host, alias, *warm, *warm.Extra, *want, *want.Extra)
		}
		for _, f := range facts {
			gu, gok := warm.Targets.Match(&f)
			wu, wok := want.Targets.Match(&f)
			if gu != wu || gok != wok {
				t.Fatalf("%s/%s, facts %+v: warm-up matches %q %v, load %q %v", host, alias, f, gu, gok, wu, wok)
			}
		}
	}
}

// A change notified between a miss's generation check and its Set must
// win: ristretto applies the Set after the invalidation's Del, so without
// the load's second check the stale row would stay cached.
func TestLoadInvalidationWins(t *testing.T) {
	c, store := newTestCache(t, 1)
	c.links.vers.beforeSet = func() {
		if _, err := pgtest.Pool(store).Exec(context.Background(),
			`UPDATE links SET long_url = 'https://example.com/new' WHERE alias = 'w0'`); err != nil {
			t.Error(err)
		}
		c.InvalidateLink("", "w0")
	}
	if _, err := c.LoadLink(context.Background(), "", "w0"); err != nil {
		t.Fatal(err)
	}
	c.links.vers.beforeSet = nil
	c.Wait()
	if l, ok := c.Link("", []byte("w0")); ok {
		t.Fatalf("w0 cached with the row read before the change: %q", l.Dest())
	}
	l, err := c.LoadLink(context.Background(), "", "w0")
	if err != nil || l.Dest() != "https://example.com/new" {
		t.Fatalf("load after the change: %v %v", l, err)
	}
}

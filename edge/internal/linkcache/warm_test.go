package linkcache

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"unsafe"

	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// newTestCache returns a cache over a fresh database holding n direct
// links w0..w{n-1} to https://example.com/{i}.
func newTestCache(t *testing.T, n int) (*Cache, *pgstore.Store) {
	t.Helper()
	store, _ := pgtest.Store(t)
	ctx := context.Background()
	var uid int64
	err := store.Pool().QueryRow(ctx, `INSERT INTO users (email, username, plan, api_key_hash)
		VALUES ('w@example.com', 'warm', 'free', 'k') RETURNING id`).Scan(&uid)
	if err != nil {
		t.Fatal(err)
	}
	_, err = store.Pool().Exec(ctx, `INSERT INTO links (user_id, alias, long_url)
		SELECT $1, 'w' || i, 'https://example.com/' || i FROM generate_series(0, $2 - 1) i`, uid, n)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(store, slog.New(slog.DiscardHandler), Config{MaxBytes: 8 << 20})
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
		l, ok := c.Get("", fmt.Appendf(nil, "w%d", i))
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
	c.warmRowHook = func(row *pgstore.EdgeLink) {
		if !first {
			return
		}
		first = false
		// Rows arrive most recent first; change a link the stream has
		// already read, as an admin write + NOTIFY would.
		changed = row.Alias
		if _, err := store.Pool().Exec(context.Background(),
			`UPDATE links SET long_url = 'https://example.com/new' WHERE alias = $1`, changed); err != nil {
			t.Error(err)
		}
		c.Invalidate("", changed)
	}
	if _, err := c.Warm(context.Background(), 1000); err != nil {
		t.Fatal(err)
	}
	if l, ok := c.Get("", []byte(changed)); ok && l.Dest() != "https://example.com/new" {
		t.Fatalf("%s cached with the warm-up's stale row: %q", changed, l.Dest())
	}
	l, err := c.Load(context.Background(), "", changed)
	if err != nil || l.Dest() != "https://example.com/new" {
		t.Fatalf("load after warm-up: %v %v", l, err)
	}
}

// A Clear (listener resync) during the warm-up restarts it: nothing read
// before the Clear stays cached, and the restart caches everything.
func TestWarmRestartsAfterClear(t *testing.T) {
	c, _ := newTestCache(t, 100)
	clears := 0
	c.warmRowHook = func(*pgstore.EdgeLink) {
		if clears == 0 {
			clears++
			c.Clear()
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

func TestInvalidateIDResolvesInDatabase(t *testing.T) {
	c, store := newTestCache(t, 5)
	if _, err := c.Warm(context.Background(), 10); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := store.Pool().QueryRow(context.Background(), `SELECT id FROM links WHERE alias = 'w3'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	c.InvalidateID(context.Background(), id)
	c.Wait()
	if _, ok := c.Get("", []byte("w3")); ok {
		t.Fatal("w3 still cached after InvalidateID")
	}
	if _, ok := c.Get("", []byte("w2")); !ok {
		t.Fatal("InvalidateID dropped another link")
	}
	c.InvalidateID(context.Background(), 1<<40) // unknown id: nothing happens
	if _, ok := c.Get("", []byte("w2")); !ok {
		t.Fatal("an unknown id dropped a link")
	}
}

// The 1M-link memory budget (edge/PERFORMANCE.md) counts on a 64-byte Link.
func TestLinkSize(t *testing.T) {
	if n := unsafe.Sizeof(Link{}); n > 64 {
		t.Fatalf("Link is %d bytes, want <= 64", n)
	}
}

package pgstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

func plainLink(uid int64, url string) *link.Link {
	return &link.Link{UserID: uid, LongURL: url, Type: link.TypeDirect, Status: link.StatusPrivate}
}

func aliasGen(prefix string) func(int) string {
	var mu sync.Mutex
	n := 0
	return func(int) string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("%s%d", prefix, n)
	}
}

// TestCreateLinkOrReusePlainOnly stores links that each differ from a plain
// link in one setting: none is reused, so the SQL of CreateLinkOrReuse
// agrees with link.Link.Plain field by field. The plain one is reused.
func TestCreateLinkOrReusePlainOnly(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	uid := newLinkUser(t, st, "alice")
	other := newLinkUser(t, st, "bob")
	ref := func(sql string) *int64 {
		var id int64
		if err := pgtest.Pool(st).QueryRow(ctx, sql, uid).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return &id
	}
	channel := ref(`INSERT INTO channels (user_id, name) VALUES ($1, 'c') RETURNING id`)
	campaign := ref(`INSERT INTO campaigns (user_id, name) VALUES ($1, 'c') RETURNING id`)
	splash := ref(`INSERT INTO splash_pages (user_id, name) VALUES ($1, 's') RETURNING id`)
	overlay := ref(`INSERT INTO overlays (user_id, name) VALUES ($1, 'o') RETURNING id`)
	pixel := ref(`INSERT INTO pixels (user_id, type, name, tag) VALUES ($1, 'shortvideo', 'p', 'T') RETURNING id`)
	ref(`INSERT INTO domains (user_id, host, domain) VALUES ($1, 'go.example', 'https://go.example') RETURNING id`)
	future := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	const url = "https://example.com/same"
	variants := map[string]func(l *link.Link){
		"custom":          func(l *link.Link) { l.Custom = true },
		"frame":           func(l *link.Link) { l.Type = link.TypeFrame },
		"splash page":     func(l *link.Link) { l.Type, l.SplashID = link.TypeSplash, splash },
		"overlay page":    func(l *link.Link) { l.Type, l.OverlayID = link.TypeOverlay, overlay },
		"password":        func(l *link.Link) { l.PasswordHash = "x" },
		"expiry":          func(l *link.Link) { l.ExpiresAt = &future },
		"metatitle":       func(l *link.Link) { l.MetaTitle = "t" },
		"metadescription": func(l *link.Link) { l.MetaDescription = "d" },
		"metaimage":       func(l *link.Link) { l.MetaImage = "https://c.example/i.png" },
		"description":     func(l *link.Link) { l.Description = "n" },
		"public":          func(l *link.Link) { l.Status = link.StatusPublic },
		"channel":         func(l *link.Link) { l.ChannelID = channel },
		"campaign":        func(l *link.Link) { l.CampaignID = campaign },
		"deeplink ios":    func(l *link.Link) { l.DeeplinkIOS = "https://apps.example/1" },
		"deeplink android": func(l *link.Link) {
			l.DeeplinkAndroid = "https://play.example/1"
		},
		"geo": func(l *link.Link) { l.GeoTargets = []link.GeoTarget{{Location: "DE", Link: "https://de.example/"}} },
		"device": func(l *link.Link) {
			l.DeviceTargets = []link.DeviceTarget{{Device: "iphone", Link: "https://i.example/"}}
		},
		"language":   func(l *link.Link) { l.LangTargets = []link.LangTarget{{Language: "de", Link: "https://de.example/"}} },
		"parameters": func(l *link.Link) { l.Parameters = []link.Param{{Name: "a", Value: "1"}} },
		"pixels":     func(l *link.Link) { l.PixelIDs = []int64{*pixel} },
		"other host": func(l *link.Link) { l.Host = "go.example" },
	}
	next := aliasGen("v")
	for name, set := range variants {
		l := plainLink(uid, url)
		set(l)
		if name != "other host" && l.Plain() {
			t.Errorf("%s: Plain() is true", name)
		}
		if l.Custom {
			l.Alias = "custom-" + strings.ReplaceAll(name, " ", "-")
		}
		gen := next
		if l.Custom {
			gen = nil
		}
		if err := st.CreateLink(ctx, l, gen); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// Another user's plain link is not alice's.
	if err := st.CreateLink(ctx, plainLink(other, url), next); err != nil {
		t.Fatal(err)
	}

	first := plainLink(uid, url)
	reused, err := st.CreateLinkOrReuse(ctx, first, next)
	if err != nil || reused {
		t.Fatalf("first plain link: reused %v, %v; no stored link is plain", reused, err)
	}
	again := plainLink(uid, url)
	reused, err = st.CreateLinkOrReuse(ctx, again, next)
	if err != nil || !reused || again.ID != first.ID || again.Alias != first.Alias {
		t.Fatalf("second: reused %v (id %d, want %d), %v", reused, again.ID, first.ID, err)
	}
	// A newer plain duplicate (made without dedupe) does not change the answer: the oldest wins.
	if err := st.CreateLink(ctx, plainLink(uid, url), next); err != nil {
		t.Fatal(err)
	}
	third := plainLink(uid, url)
	if reused, err := st.CreateLinkOrReuse(ctx, third, next); err != nil || !reused || third.ID != first.ID {
		t.Errorf("third: reused %v id %d, %v; want the oldest %d", reused, third.ID, err, first.ID)
	}
	// Same URL on the branded domain: a different link.
	branded := plainLink(uid, url)
	branded.Host = "go.example"
	if reused, err := st.CreateLinkOrReuse(ctx, branded, next); err != nil || !reused || branded.Domain != "https://go.example" {
		t.Errorf("branded: reused %v, domain %q, %v; want the stored plain link on go.example", reused, branded.Domain, err)
	}
}

// TestCreateLinkOrReuseConcurrent sends identical plain creates at once:
// the advisory lock makes them share one link.
func TestCreateLinkOrReuseConcurrent(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	uid := newLinkUser(t, st, "alice")
	next := aliasGen("c")
	// Open the pool's connections first, so the requests really overlap
	// instead of queueing behind connection set-up.
	var conns []*pgxpool.Conn
	for range pgtest.Pool(st).Config().MaxConns {
		c, err := pgtest.Pool(st).Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Release()
	}
	const n = 30
	ids := make([]int64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			l := plainLink(uid, "https://example.com/race")
			_, errs[i] = st.CreateLinkOrReuse(ctx, l, next)
			ids[i] = l.ID
		}()
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil || ids[i] != ids[0] {
			t.Errorf("request %d: id %d, %v; want %d", i, ids[i], errs[i], ids[0])
		}
	}
	if _, total, _ := st.ListLinks(ctx, uid, nil, 100, 0); total != 1 {
		t.Errorf("%d links, want 1", total)
	}
}

// TestPlainLinkLookupUsesIndex: the dedupe lookup is one index probe on
// (user_id, md5(long_url)) (migration 0025), also for URLs longer than a
// btree entry may be.
func TestPlainLinkLookupUsesIndex(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	uid := newLinkUser(t, st, "alice")
	long := "https://example.com/" + strings.Repeat("x", link.MaxURLLen-len("https://example.com/"))
	l := plainLink(uid, long)
	if err := st.CreateLink(ctx, l, aliasGen("l")); err != nil {
		t.Fatalf("4096-character URL: %v", err)
	}
	again := plainLink(uid, long)
	if reused, err := st.CreateLinkOrReuse(ctx, again, aliasGen("m")); err != nil || !reused || again.ID != l.ID {
		t.Fatalf("reuse of a 4096-character URL: %v, %v", reused, err)
	}
	tx, err := pgtest.Pool(st).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	// On a tiny table a sequential scan is cheaper; forbid it to see
	// whether the index can serve the query at all.
	if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	if plan := explain(t, tx, pgstore.PlainLinkSQL, uid, long, ""); !strings.Contains(plan, "links_user_long_url_md5_idx") {
		t.Errorf("plan does not use links_user_long_url_md5_idx:\n%s", plan)
	}
}

package main

import (
	"context"
	"testing"
	"time"

	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// The bulk seed announces every link to listening edges, unless
// --no-notify turns the triggers off for its transaction; either way the
// triggers are on again afterwards, so later changes still reach edges.
func TestSeedPGNotices(t *testing.T) {
	for _, tt := range []struct {
		name     string
		noNotify bool
		want     int // notices for 40 links (plus their link_pixels rows)
	}{
		{"notify", false, 40},
		{"no-notify", true, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			store, dsn := pgtest.Store(t)
			u, err := store.CreateUser(ctx, pgstore.NewUser{Email: "s@example.com", Username: "s", Plan: "free", APIKeyHash: []byte("k")})
			if err != nil {
				t.Fatal(err)
			}
			listener := pgtest.Listen(ctx, t, dsn)
			m := mix{500, 200, 300, 0, 0} // direct, targeted, pixel
			entries := plan(40, m, nil, 0, 1)
			c := &seedConfig{databaseURL: dsn, userID: u.ID, noNotify: tt.noNotify}
			if err := seedPG(ctx, c, entries); err != nil {
				t.Fatal(err)
			}
			if got := pgtest.Notices(ctx, t, listener)["links"]; got != tt.want {
				t.Errorf("link notices during the seed = %d, want %d", got, tt.want)
			}
			var disabled int
			if err := listener.QueryRow(ctx, `SELECT count(*) FROM pg_trigger
				WHERE tgname IN ('links_notify', 'link_pixels_notify') AND tgenabled = 'D'`).Scan(&disabled); err != nil {
				t.Fatal(err)
			}
			if disabled != 0 {
				t.Fatalf("%d change-notice triggers left disabled after the seed", disabled)
			}
			if _, err := listener.Exec(ctx, "UPDATE links SET long_url = 'https://example.com/changed' WHERE id = (SELECT min(id) FROM links)"); err != nil {
				t.Fatal(err)
			}
			if got := pgtest.Notices(ctx, t, listener)["links"]; got != 1 {
				t.Errorf("notices for an update after the seed = %d, want 1", got)
			}
		})
	}
}

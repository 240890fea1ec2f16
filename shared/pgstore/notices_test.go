package pgstore_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

func TestParseChange(t *testing.T) {
	tests := []struct {
		name, payload string
		want          pgstore.Change
	}{
		{"link update moving campaigns",
			`{"t":"links","op":"UPDATE","id":7,"host":"","alias":"b","old_host":"","old_alias":"a","campaign_id":3,"old_campaign_id":2}`,
			pgstore.Change{Object: pgstore.ObjectLink, Op: pgstore.OpUpdate, ID: 7, Alias: "b", OldAlias: "a", CampaignID: 3, OldCampaignID: 2}},
		{"link outside campaigns",
			`{"t":"links","op":"INSERT","id":8,"host":"go.test","alias":"x","campaign_id":0}`,
			pgstore.Change{Object: pgstore.ObjectLink, Op: pgstore.OpInsert, ID: 8, Host: "go.test", Alias: "x"}},
		{"link notice of the trigger before 0030",
			`{"t":"links","op":"DELETE","id":9,"host":"","alias":"y"}`,
			pgstore.Change{Object: pgstore.ObjectLink, Op: pgstore.OpDelete, ID: 9, Alias: "y", AllCampaigns: true}},
		{"link pixels of one statement",
			`{"t":"link_pixels","op":"DELETE","ids":[1,2,5]}`,
			pgstore.Change{Object: pgstore.ObjectLinkPixels, Op: pgstore.OpDelete, IDs: []int64{1, 2, 5}}},
		{"link pixels of one row (before 0030)",
			`{"t":"link_pixels","op":"INSERT","id":4}`,
			pgstore.Change{Object: pgstore.ObjectLinkPixels, Op: pgstore.OpInsert, ID: 4, IDs: []int64{4}}},
		{"campaign renamed (0032)",
			`{"t":"campaigns","op":"UPDATE","id":3,"n":41,"slug":"new","old_slug":"old","username":"ann"}`,
			pgstore.Change{Object: pgstore.ObjectCampaign, Op: pgstore.OpUpdate, ID: 3, Slug: "new", OldSlug: "old", Username: "ann", CampaignKeys: true}},
		{"campaign notice before 0032", `{"t":"campaigns","op":"DELETE","id":3}`,
			pgstore.Change{Object: pgstore.ObjectCampaign, Op: pgstore.OpDelete, ID: 3}},
		{"qr code", `{"t":"qr_codes","op":"UPDATE","id":1,"code":"abc"}`,
			pgstore.Change{Object: pgstore.ObjectQR, Op: pgstore.OpUpdate, ID: 1, Code: "abc"}},
		{"overlay", `{"t":"overlays","op":"UPDATE","id":5}`,
			pgstore.Change{Object: pgstore.ObjectOverlay, Op: pgstore.OpUpdate, ID: 5}},
		{"unknown table", `{"t":"users","op":"UPDATE","id":1}`, pgstore.Change{}},
		{"unknown op", `{"t":"links","op":"TRUNCATE"}`, pgstore.Change{}},
		{"not json", `links 1`, pgstore.Change{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pgstore.ParseChange(tt.payload)
			tt.want.Payload = tt.payload
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// collect reads notices until none arrives for a second.
func collect(t *testing.T, n *pgstore.Notices) []pgstore.Change {
	t.Helper()
	var out []pgstore.Change
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := n.Next(ctx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
}

// A link's notice names its campaigns, old and new; the pixel set changes
// of one statement are one notice naming every link (split only near
// pg_notify's 8000-byte limit), not one notice per row.
func TestNoticesFromTriggers(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	db := pgtest.Pool(st)
	uid := newLinkUser(t, st, "notices")
	var c1, c2 int64
	for _, p := range []*int64{&c1, &c2} {
		if err := db.QueryRow(ctx, `INSERT INTO campaigns (user_id, name) VALUES ($1, 'c') RETURNING id`, uid).Scan(p); err != nil {
			t.Fatal(err)
		}
	}
	n, err := st.Listen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close(ctx)

	var id int64
	if err := db.QueryRow(ctx, `INSERT INTO links (user_id, alias, long_url, campaign_id) VALUES ($1, 'n1', 'https://example.com/', $2) RETURNING id`,
		uid, c1).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `UPDATE links SET campaign_id = $1 WHERE id = $2`, c2, id); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `UPDATE links SET campaign_id = NULL WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	got := collect(t, n)
	want := []struct {
		op        pgstore.Op
		camp, old int64
	}{{pgstore.OpInsert, c1, 0}, {pgstore.OpUpdate, c2, c1}, {pgstore.OpUpdate, 0, c2}}
	if len(got) != len(want) {
		t.Fatalf("%d notices, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Object != pgstore.ObjectLink || g.Op != w.op || g.ID != id || g.CampaignID != w.camp || g.OldCampaignID != w.old || g.AllCampaigns {
			t.Fatalf("notice %d: %+v, want op %v campaign %d old %d", i, g, w.op, w.camp, w.old)
		}
	}

	const links = 2000
	var px int64
	if err := db.QueryRow(ctx, `INSERT INTO pixels (user_id, type, name, tag) VALUES ($1, 'gtmpixel', 'p', 'GTM-1') RETURNING id`, uid).Scan(&px); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `INSERT INTO links (user_id, alias, long_url) SELECT $1, 'p' || i, 'https://example.com/' FROM generate_series(1, $2::int) i`,
		uid, links); err != nil {
		t.Fatal(err)
	}
	collect(t, n) // the links' own notices
	for _, step := range []struct {
		name string
		sql  string
		op   pgstore.Op
	}{
		{"add the pixel to every link", `INSERT INTO link_pixels (link_id, pixel_id) SELECT id, $1 FROM links WHERE alias LIKE 'p%'`, pgstore.OpInsert},
		{"delete the pixel", `DELETE FROM pixels WHERE id = $1`, pgstore.OpDelete},
	} {
		if _, err := db.Exec(ctx, step.sql, px); err != nil {
			t.Fatal(err)
		}
		var ids []int64
		notices := 0
		for _, c := range collect(t, n) {
			if c.Object != pgstore.ObjectLinkPixels {
				continue
			}
			notices++
			if c.Op != step.op || len(c.Payload) >= 8000 {
				t.Fatalf("%s: notice op %v, %d bytes", step.name, c.Op, len(c.Payload))
			}
			ids = append(ids, c.IDs...)
		}
		// 2000 ids print as ~11 kB: two notices, where a row trigger sent 2000.
		if notices > 2 || len(ids) != links {
			t.Fatalf("%s: %d link_pixels notices naming %d links, want at most 2 naming %d", step.name, notices, len(ids), links)
		}
	}
}

// TestNoticesProbe: a lag probe goes through the pool to the session's own
// channel; Next records its lag and does not return it as a change, and
// change notices still arrive.
func TestNoticesProbe(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	n, err := st.Listen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close(ctx)
	if lag, probes := n.Lag(); lag != 0 || probes != 0 {
		t.Fatalf("before any probe: lag %v, %d probes", lag, probes)
	}
	if err := n.Probe(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pgtest.Pool(st).Exec(ctx, `SELECT pg_notify($1, '{"t":"domains","op":"UPDATE","id":1}')`, pgstore.ChangeChannel); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, err := n.Next(wctx)
	if err != nil || c.Object != pgstore.ObjectDomain {
		t.Fatalf("Next: %+v, %v; want the domain notice after the probe", c, err)
	}
	lag, probes := n.Lag()
	if probes != 1 || lag <= 0 || lag > time.Second {
		t.Fatalf("after one probe: lag %v, %d probes", lag, probes)
	}
}

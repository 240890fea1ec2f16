package pgstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// searchFixture makes 7 links of alice, l0 oldest … l6 newest (two with
// the same creation time, to prove the id breaks ties), and one of bob.
func searchFixture(t *testing.T) (st *pgstore.Store, alice int64, ids []int64) {
	t.Helper()
	st, _ = pgtest.Store(t)
	ctx := context.Background()
	alice, bob := newLinkUser(t, st, "alice"), newLinkUser(t, st, "bob")
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 7 {
		l := &link.Link{UserID: alice, Alias: fmt.Sprintf("l%d", i), LongURL: fmt.Sprintf("https://example.com/p%d", i),
			Type: "direct", Status: "private", MetaTitle: fmt.Sprintf("Title %d", i)}
		if i == 3 {
			l.MetaTitle, l.LongURL = "Spring 100% off_sale", "https://shop.example/Spring"
		}
		if err := st.CreateLink(ctx, l, nil); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Second)
		if i == 5 {
			at = base.Add(4 * time.Second) // same time as l4: the id orders them
		}
		if _, err := pgtest.Pool(st).Exec(ctx, `UPDATE links SET created_at = $2 WHERE id = $1`, l.ID, at); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	other := &link.Link{UserID: bob, Alias: "bobs", LongURL: "https://example.com/p1", Type: "direct", Status: "private"}
	if err := st.CreateLink(ctx, other, nil); err != nil {
		t.Fatal(err)
	}
	return st, alice, ids
}

func aliases(p pgstore.LinkPage) []string {
	var out []string
	for _, l := range p.Links {
		out = append(out, l.Alias)
	}
	return out
}

func cursorOf(l link.Link) *pgstore.LinkCursor {
	return &pgstore.LinkCursor{CreatedAt: l.CreatedAt, ID: l.ID}
}

// Keyset pages walk the date order forwards and back without gaps or
// repeats, and say which directions have more.
func TestSearchLinksKeyset(t *testing.T) {
	st, alice, _ := searchFixture(t)
	ctx := context.Background()
	q := pgstore.LinkQuery{UserID: alice, Limit: 3}
	p1, err := st.SearchLinks(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, p pgstore.LinkPage, want []string, older, newer bool) {
		t.Helper()
		if !slices.Equal(aliases(p), want) || p.Older != older || p.Newer != newer || p.Total != 7 {
			t.Errorf("%s: %v older=%v newer=%v total=%d; want %v older=%v newer=%v total=7",
				name, aliases(p), p.Older, p.Newer, p.Total, want, older, newer)
		}
	}
	check("first", p1, []string{"l6", "l5", "l4"}, true, false)
	q.After = cursorOf(p1.Links[2])
	p2, _ := st.SearchLinks(ctx, q)
	check("second", p2, []string{"l3", "l2", "l1"}, true, true)
	q.After = cursorOf(p2.Links[2])
	p3, _ := st.SearchLinks(ctx, q)
	check("last", p3, []string{"l0"}, false, true)
	q.After, q.Before = nil, cursorOf(p3.Links[0])
	back, _ := st.SearchLinks(ctx, q)
	check("back from last", back, []string{"l3", "l2", "l1"}, true, true)
	q.Before = cursorOf(back.Links[0])
	first, _ := st.SearchLinks(ctx, q)
	check("back to first", first, []string{"l6", "l5", "l4"}, true, false)
}

// Search matches alias, long URL and title, ignoring case; its wildcards
// match themselves; other users' links never show.
func TestSearchLinksFilter(t *testing.T) {
	st, alice, ids := searchFixture(t)
	ctx := context.Background()
	for search, want := range map[string][]string{
		"l2":         {"l2"},
		"SPRING":     {"l3"},
		"shop.ex":    {"l3"},
		"100%":       {"l3"},
		"f_s":        {"l3"},
		"%":          {"l3"},
		"_":          {"l3"},
		"title 1":    {"l1"},
		"bobs":       nil,
		"nothing-at": nil,
	} {
		p, err := st.SearchLinks(ctx, pgstore.LinkQuery{UserID: alice, Search: search, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(aliases(p), want) || p.Total != len(want) {
			t.Errorf("search %q: %v (total %d), want %v", search, aliases(p), p.Total, want)
		}
	}
	// By clicks: the ranking's order, unclicked links newest first; the
	// ranking's foreign ids are ignored; search applies too.
	rank := &pgstore.ClickRanking{IDs: []int64{ids[1], 999999, ids[3]}, Clicks: []int64{9, 8, 2}}
	p, err := st.SearchLinks(ctx, pgstore.LinkQuery{UserID: alice, Rank: rank, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := aliases(p); !slices.Equal(got, []string{"l1", "l3", "l6"}) || !p.Older || p.Newer {
		t.Errorf("by clicks: %v older=%v newer=%v", got, p.Older, p.Newer)
	}
	p, _ = st.SearchLinks(ctx, pgstore.LinkQuery{UserID: alice, Rank: rank, Limit: 3, Offset: 6})
	if got := aliases(p); !slices.Equal(got, []string{"l0"}) || p.Older || !p.Newer {
		t.Errorf("by clicks, last page: %v older=%v newer=%v", got, p.Older, p.Newer)
	}
	p, _ = st.SearchLinks(ctx, pgstore.LinkQuery{UserID: alice, Rank: rank, Search: "title", Limit: 10})
	if got := aliases(p); !slices.Equal(got, []string{"l1", "l6", "l5", "l4", "l2", "l0"}) || p.Total != 6 {
		t.Errorf("by clicks with search: %v (total %d)", got, p.Total)
	}
	// NoTotal: the same page, no count.
	q := pgstore.LinkQuery{UserID: alice, Rank: rank, Search: "title", Limit: 10, NoTotal: true}
	if p, err := st.SearchLinks(ctx, q); err != nil || !slices.Equal(aliases(p), []string{"l1", "l6", "l5", "l4", "l2", "l0"}) || p.Total != 0 {
		t.Errorf("without the total: %v (total %d) %v", aliases(p), p.Total, err)
	}
	// A failing count fails the page, as a failing page read does.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := st.SearchLinks(cancelled, pgstore.LinkQuery{UserID: alice, Limit: 10}); err == nil {
		t.Error("a cancelled search answered")
	}
}

// The campaign and channel filters keep their links only, combine with the
// search and with both orders, and keyset pages keep them.
func TestSearchLinksCampaignChannel(t *testing.T) {
	st, alice, ids := searchFixture(t)
	ctx := context.Background()
	camp, err := st.CreateCampaign(ctx, link.Campaign{UserID: alice, Name: "Spring"})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := st.CreateChannel(ctx, link.Channel{UserID: alice, Name: "Newsletter"})
	if err != nil {
		t.Fatal(err)
	}
	// l1, l3, l4, l6 in the campaign; l3, l6 also in the channel; l2 in the channel only.
	for i, in := range map[int][2]bool{1: {true, false}, 2: {false, true}, 3: {true, true}, 4: {true, false}, 6: {true, true}} {
		var campID, chID any
		if in[0] {
			campID = camp.ID
		}
		if in[1] {
			chID = ch.ID
		}
		if _, err := pgtest.Pool(st).Exec(ctx, `UPDATE links SET campaign_id = $2, channel_id = $3 WHERE id = $1`,
			ids[i], campID, chID); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name         string
		q            pgstore.LinkQuery
		want         []string
		older, newer bool
		total        int
	}{
		{"campaign", pgstore.LinkQuery{CampaignID: camp.ID, Limit: 10}, []string{"l6", "l4", "l3", "l1"}, false, false, 4},
		{"channel", pgstore.LinkQuery{ChannelID: ch.ID, Limit: 10}, []string{"l6", "l3", "l2"}, false, false, 3},
		{"both", pgstore.LinkQuery{CampaignID: camp.ID, ChannelID: ch.ID, Limit: 10}, []string{"l6", "l3"}, false, false, 2},
		{"campaign and search", pgstore.LinkQuery{CampaignID: camp.ID, Search: "spring", Limit: 10}, []string{"l3"}, false, false, 1},
		{"campaign, first page", pgstore.LinkQuery{CampaignID: camp.ID, Limit: 2}, []string{"l6", "l4"}, true, false, 4},
		{"campaign, after l4", pgstore.LinkQuery{CampaignID: camp.ID, Limit: 2, After: &pgstore.LinkCursor{ID: ids[4]}}, []string{"l3", "l1"}, false, true, 4},
		{"campaign, before l3", pgstore.LinkQuery{CampaignID: camp.ID, Limit: 2, Before: &pgstore.LinkCursor{ID: ids[3]}}, []string{"l6", "l4"}, true, false, 4},
		{"campaign by clicks", pgstore.LinkQuery{CampaignID: camp.ID, Limit: 3,
			Rank: &pgstore.ClickRanking{IDs: []int64{ids[0], ids[3], ids[2]}, Clicks: []int64{50, 9, 7}}}, []string{"l3", "l6", "l4"}, true, false, 4},
		{"another user's campaign", pgstore.LinkQuery{CampaignID: camp.ID + 1000, Limit: 10}, nil, false, false, 0},
	}
	createdAt := map[int64]time.Time{}
	all, _ := st.SearchLinks(ctx, pgstore.LinkQuery{UserID: alice, Limit: 10})
	for _, l := range all.Links {
		createdAt[l.ID] = l.CreatedAt
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.UserID = alice
			for _, c := range []*pgstore.LinkCursor{tc.q.After, tc.q.Before} {
				if c != nil {
					c.CreatedAt = createdAt[c.ID]
				}
			}
			p, err := st.SearchLinks(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(aliases(p), tc.want) || p.Older != tc.older || p.Newer != tc.newer || p.Total != tc.total {
				t.Errorf("%v older=%v newer=%v total=%d; want %v older=%v newer=%v total=%d",
					aliases(p), p.Older, p.Newer, p.Total, tc.want, tc.older, tc.newer, tc.total)
			}
		})
	}
}

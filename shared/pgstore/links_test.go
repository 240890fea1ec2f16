package pgstore_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
	"kurz/shared/secret"
)

func newLinkUser(t *testing.T, st *pgstore.Store, name string) int64 {
	t.Helper()
	_, hash := secret.NewAPIKey()
	u, err := st.CreateUser(context.Background(), pgstore.NewUser{Email: name + "@example.com", Username: name, Plan: "free", APIKeyHash: hash})
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// TestCreateLinkRandomRetry proves the retry loop: taken candidates are
// skipped inside one transaction, and exhaustion is an error, not a
// half-written link.
func TestCreateLinkRandomRetry(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	uid := newLinkUser(t, st, "alice")
	taken := &link.Link{UserID: uid, Alias: "taken", LongURL: "https://example.com/", Type: "direct", Status: "private"}
	if err := st.CreateLink(ctx, taken, nil); err != nil {
		t.Fatal(err)
	}
	var attempts []int
	l := &link.Link{UserID: uid, LongURL: "https://example.com/2", Type: "direct", Status: "private"}
	err := st.CreateLink(ctx, l, func(attempt int) string {
		attempts = append(attempts, attempt)
		if attempt < 3 {
			return "taken"
		}
		return "fresh"
	})
	if err != nil {
		t.Fatal(err)
	}
	if l.Alias != "fresh" || len(attempts) != 4 {
		t.Errorf("alias %q after attempts %v", l.Alias, attempts)
	}

	all := &link.Link{UserID: uid, LongURL: "https://example.com/3", Type: "direct", Status: "private"}
	if err := st.CreateLink(ctx, all, func(int) string { return "taken" }); err == nil {
		t.Fatal("exhausted attempts must fail")
	}
	_, total, err := st.ListLinks(ctx, uid, nil, 10, 0)
	if err != nil || total != 2 {
		t.Fatalf("total %d, %v; want 2 links", total, err)
	}

	dup := &link.Link{UserID: uid, Alias: "taken", LongURL: "https://example.com/4", Type: "direct", Status: "private"}
	if err := st.CreateLink(ctx, dup, nil); !errors.Is(err, link.ErrAliasTaken) {
		t.Fatalf("custom duplicate: %v, want ErrAliasTaken", err)
	}
}

// TestCreateLinkRefs checks that references of another user roll the
// whole insert back.
func TestCreateLinkRefs(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	a, b := newLinkUser(t, st, "alice"), newLinkUser(t, st, "bob")
	px := &link.Pixel{UserID: b, Type: "analyticspixel", Name: "b", Tag: "B-1"}
	if err := st.CreatePixel(ctx, px); err != nil {
		t.Fatal(err)
	}
	l := &link.Link{UserID: a, Alias: "refs", LongURL: "https://example.com/", Type: "direct", Status: "private", PixelIDs: []int64{px.ID}}
	var ref *link.RefError
	if err := st.CreateLink(ctx, l, nil); !errors.As(err, &ref) || ref.Field != "pixels" || ref.ID != px.ID {
		t.Fatalf("err %v, want RefError for pixel %d", err, px.ID)
	}
	if _, total, _ := st.ListLinks(ctx, a, nil, 10, 0); total != 0 {
		t.Fatalf("half-written link: %d links", total)
	}
}

// TestListLinksByClicks orders a user's links by a ranking from ClickHouse:
// most clicks first; ties and unclicked links newest first. Ranked ids of
// deleted links and of other users are ignored, and pages do not overlap.
func TestListLinksByClicks(t *testing.T) {
	st, _ := pgtest.Store(t)
	ctx := context.Background()
	a, b := newLinkUser(t, st, "alice"), newLinkUser(t, st, "bob")
	var ids []int64 // alice's, oldest first
	for i := range 5 {
		l := &link.Link{UserID: a, Alias: "a" + string(rune('0'+i)), LongURL: "https://example.com/", Type: "direct", Status: "private"}
		if err := st.CreateLink(ctx, l, nil); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	other := &link.Link{UserID: b, Alias: "b0", LongURL: "https://example.com/", Type: "direct", Status: "private"}
	if err := st.CreateLink(ctx, other, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteLink(ctx, a, ids[4]); err != nil {
		t.Fatal(err)
	}
	// ids[1] 9 clicks; ids[0] and ids[2] tie at 3; ids[3] none; bob's and
	// the deleted link rank high but are not alice's links.
	rank := &pgstore.ClickRanking{
		IDs:    []int64{other.ID, ids[4], ids[1], ids[2], ids[0]},
		Clicks: []int64{50, 20, 9, 3, 3},
	}
	want := []int64{ids[1], ids[2], ids[0], ids[3]}
	tests := []struct {
		limit, offset int
		want          []int64
	}{
		{10, 0, want},
		{2, 0, want[:2]},
		{2, 2, want[2:]},
		{2, 4, nil},
	}
	for _, tt := range tests {
		got, total, err := st.ListLinks(ctx, a, rank, tt.limit, tt.offset)
		if err != nil {
			t.Fatal(err)
		}
		var gotIDs []int64
		for _, l := range got {
			gotIDs = append(gotIDs, l.ID)
		}
		if total != 4 || !slices.Equal(gotIDs, tt.want) {
			t.Errorf("limit %d offset %d: %v (total %d), want %v (total 4)", tt.limit, tt.offset, gotIDs, total, tt.want)
		}
	}
	// An empty ranking (nothing clicked) is the date order.
	got, _, err := st.ListLinks(ctx, a, &pgstore.ClickRanking{}, 10, 0)
	if err != nil || len(got) != 4 || got[0].ID != ids[3] || got[3].ID != ids[0] {
		t.Errorf("empty ranking: %v, %v", got, err)
	}
}

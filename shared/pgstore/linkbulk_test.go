package pgstore_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"kurz/shared/link"
	"kurz/shared/pgstore/pgtest"
)

// DeleteLinks deletes all the ids or none: one id of another user, an
// unknown id, or one deleted meanwhile leaves every link in place.
func TestDeleteLinksAllOrNothing(t *testing.T) {
	st, alice, ids := searchFixture(t)
	ctx := context.Background()
	var bob, bobs int64
	if err := pgtest.Pool(st).QueryRow(ctx, `SELECT user_id, id FROM links WHERE alias = 'bobs'`).Scan(&bob, &bobs); err != nil {
		t.Fatal(err)
	}
	remaining := func() []string {
		t.Helper()
		links, err := st.LinksByIDs(ctx, alice, append([]int64{bobs}, ids...))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range links {
			out = append(out, l.Alias)
		}
		return out
	}
	all := []string{"l6", "l5", "l4", "l3", "l2", "l1", "l0"}
	if got := remaining(); !slices.Equal(got, all) {
		t.Fatalf("LinksByIDs (alice's only, newest first): %v", got)
	}
	for _, tc := range []struct {
		name string
		ids  []int64
	}{
		{"another user's among them", []int64{ids[0], bobs, ids[1]}},
		{"an unknown one", []int64{ids[0], 987654321}},
		{"only another user's", []int64{bobs}},
	} {
		if err := st.DeleteLinks(ctx, alice, tc.ids); !errors.Is(err, link.ErrNotFound) {
			t.Errorf("%s: err %v, want ErrNotFound", tc.name, err)
		}
		if got := remaining(); !slices.Equal(got, all) {
			t.Fatalf("%s: links left %v, want all of them", tc.name, got)
		}
	}
	if _, err := st.LinkByID(ctx, bob, bobs); err != nil {
		t.Fatalf("bob's link after the refused deletes: %v", err)
	}
	if err := st.DeleteLinks(ctx, alice, []int64{ids[0], ids[3], ids[3]}); err != nil {
		t.Fatalf("delete own links (one twice): %v", err)
	}
	if got := remaining(); !slices.Equal(got, []string{"l6", "l5", "l4", "l2", "l1"}) {
		t.Fatalf("after deleting l0 and l3: %v", got)
	}
	if err := st.DeleteLinks(ctx, alice, []int64{ids[1], ids[0]}); !errors.Is(err, link.ErrNotFound) {
		t.Fatalf("with an id deleted before: %v", err)
	}
	if got := remaining(); len(got) != 5 {
		t.Fatalf("a refused delete removed links: %v", got)
	}
}

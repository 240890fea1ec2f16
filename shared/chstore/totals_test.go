package chstore_test

import (
	"context"
	"errors"
	"testing"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
	"kurz/shared/link"
)

// The numbers of ReadTotals and ReadRanking (equal to the Summary's) are
// tested with the admin's stats service (admin/internal/stats/
// totals_test.go); these are their bounds and errors.
func TestReadTotalsBounds(t *testing.T) {
	conn, _ := chtest.New(t)
	ctx := context.Background()
	ids := make([]int64, chstore.MaxTotalsIDs+1)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	got, err := chstore.ReadTotals(ctx, conn, click.KindLink, ids[:chstore.MaxTotalsIDs], true)
	if err != nil || len(got) != chstore.MaxTotalsIDs {
		t.Fatalf("a full page: %d ids, %v", len(got), err)
	}
	for id, n := range got {
		if n != (chstore.Totals{}) {
			t.Errorf("link %d nobody visited: %v", id, n)
		}
	}
	if _, err := chstore.ReadTotals(ctx, conn, click.KindLink, ids, false); err == nil || errors.Is(err, link.ErrUnavailable) {
		t.Errorf("%d ids: %v, want a plain error", len(ids), err)
	}
	if _, err := chstore.ReadTotals(ctx, conn, click.Kind(99), ids[:1], false); err == nil {
		t.Error("unknown kind accepted")
	}
	if _, _, err := chstore.ReadRanking(ctx, conn, click.Kind(99), 1, 0); err == nil {
		t.Error("ranking: unknown kind accepted")
	}
	conn.Close()
	if _, err := chstore.ReadTotals(ctx, conn, click.KindLink, ids[:1], false); !errors.Is(err, link.ErrUnavailable) {
		t.Errorf("closed connection: %v, want link.ErrUnavailable", err)
	}
	if _, _, err := chstore.ReadRanking(ctx, conn, click.KindLink, 1, 0); !errors.Is(err, link.ErrUnavailable) {
		t.Errorf("ranking, closed connection: %v, want link.ErrUnavailable", err)
	}
	// No ids, no query: the closed connection is not touched.
	if got, err := chstore.ReadTotals(ctx, conn, click.KindLink, nil, true); err != nil || len(got) != 0 {
		t.Errorf("no ids: %v, %v", got, err)
	}
}

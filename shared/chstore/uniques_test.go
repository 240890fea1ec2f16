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

// The numbers of ReadUniqueClicks (equal to the Summary's) are tested with
// the admin's stats service (admin/internal/stats/uniques_test.go); these
// are its bounds and errors.
func TestReadUniqueClicksBounds(t *testing.T) {
	conn, _ := chtest.New(t)
	ctx := context.Background()
	ids := make([]int64, chstore.MaxUniqueIDs+1)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	got, err := chstore.ReadUniqueClicks(ctx, conn, click.KindLink, ids[:chstore.MaxUniqueIDs])
	if err != nil || len(got) != chstore.MaxUniqueIDs {
		t.Fatalf("a full page: %d ids, %v", len(got), err)
	}
	for id, n := range got {
		if n != 0 {
			t.Errorf("link %d nobody visited: %d", id, n)
		}
	}
	if _, err := chstore.ReadUniqueClicks(ctx, conn, click.KindLink, ids); err == nil || errors.Is(err, link.ErrUnavailable) {
		t.Errorf("%d ids: %v, want a plain error", len(ids), err)
	}
	if _, err := chstore.ReadUniqueClicks(ctx, conn, click.Kind(99), ids[:1]); err == nil {
		t.Error("unknown kind accepted")
	}
	conn.Close()
	if _, err := chstore.ReadUniqueClicks(ctx, conn, click.KindLink, ids[:1]); !errors.Is(err, link.ErrUnavailable) {
		t.Errorf("closed connection: %v, want link.ErrUnavailable", err)
	}
	// No ids, no query: the closed connection is not touched.
	if got, err := chstore.ReadUniqueClicks(ctx, conn, click.KindLink, nil); err != nil || len(got) != 0 {
		t.Errorf("no ids: %v, %v", got, err)
	}
}

package stats_test

import (
	"context"
	"reflect"
	"testing"

	"kurz/admin/internal/stats"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// TestUniqueClicks reads many targets' unique visitors in one query; each
// equals the Summary's, and targets nobody visited are 0.
func TestUniqueClicks(t *testing.T) {
	conn, _ := chtest.New(t)
	insert(t, conn, fixture())
	svc := stats.New(conn)
	ctx := context.Background()
	got, err := svc.UniqueClicks(ctx, click.KindLink, []int64{42, 43, 99, 7})
	if err != nil {
		t.Fatal(err)
	}
	// 7 is a QR code's id: its scans are not a link's clicks.
	want := map[int64]uint64{42: 4, 43: 1, 99: 0, 7: 0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UniqueClicks = %v, want %v", got, want)
	}
	for _, id := range []int64{42, 43} {
		sum, err := svc.Summary(ctx, click.KindLink, id)
		if err != nil {
			t.Fatal(err)
		}
		if sum.UniqueClicks != got[id] {
			t.Errorf("link %d: Summary %d, UniqueClicks %d", id, sum.UniqueClicks, got[id])
		}
	}
	qr, err := svc.UniqueClicks(ctx, click.KindQR, []int64{7})
	if err != nil || qr[7] != 2 {
		t.Errorf("QR 7: %v, %v; want 2", qr, err)
	}
	if empty, err := svc.UniqueClicks(ctx, click.KindLink, nil); err != nil || len(empty) != 0 {
		t.Errorf("no ids: %v, %v", empty, err)
	}
}

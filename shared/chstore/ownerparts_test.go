package chstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
	"kurz/shared/link"
)

func TestParsePartName(t *testing.T) {
	tests := []struct {
		name string
		want chstore.PartRange
		ok   bool
	}{
		{"all_1_1_0", chstore.PartRange{Partition: "all", Min: 1, Max: 1}, true},
		{"all_15_1780_1537", chstore.PartRange{Partition: "all", Min: 15, Max: 1780}, true},
		{"202611_3_9_2_12", chstore.PartRange{Partition: "202611", Min: 3, Max: 9}, true},
		{"all_1_1_0_9876543210", chstore.PartRange{Partition: "all", Min: 1, Max: 1}, true}, // a mutation version is a block number
		{"all_-1_1_0", chstore.PartRange{}, false},
		{"all_9_3_1", chstore.PartRange{}, false}, // max below min
		{"all_1_1", chstore.PartRange{}, false},
		{"_1_1_0", chstore.PartRange{}, false},
		{"all_a_1_0", chstore.PartRange{}, false},
		{"all_1_1_x", chstore.PartRange{}, false},
		{"all_1_1_0_1_2", chstore.PartRange{}, false},
	}
	for _, tt := range tests {
		got, ok := chstore.ParsePartName(tt.name)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("ParsePartName(%q) = %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	merged, _ := chstore.ParsePartName("all_1_9_2")
	for name, want := range map[string]bool{"all_1_1_0": true, "all_3_9_1": true, "all_9_10_1": false, "x_2_2_0": false} {
		p, _ := chstore.ParsePartName(name)
		if merged.Covers(p) != want {
			t.Errorf("all_1_9_2 covers %s: %v, want %v", name, !want, want)
		}
	}
}

// TestOwnerPartReads: the owner's rows read part by part add up to the
// ranking read whole; leaving parts out leaves exactly their rows out; a
// closed connection is link.ErrUnavailable for each read.
func TestOwnerPartReads(t *testing.T) {
	conn, _ := chtest.New(t)
	chtest.StopMerges(t, conn, "click_owner_totals") // the parts read stay the parts named
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	insertAll(t, conn, chtest.Clicks(now, 400))
	insertAll(t, conn, chtest.Clicks(now.Add(-time.Hour), 200))
	if dist, err := chstore.OwnerTableDistributed(ctx, conn); err != nil || dist {
		t.Errorf("one server's table Distributed: %v, %v", dist, err)
	}
	for owner := int64(1); owner <= 3; owner++ {
		rows, err := chstore.ReadOwnerPartRows(ctx, conn, click.KindLink, owner, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) < 2 {
			t.Fatalf("owner %d: rows in %d parts, want the two inserts'", owner, len(rows))
		}
		sums := map[int64]int64{}
		var names []string
		var n uint64
		for name, rs := range rows {
			if _, ok := chstore.ParsePartName(name); !ok {
				t.Errorf("owner %d: part name %q", owner, name)
			}
			names = append(names, name)
			n += uint64(len(rs))
			for _, r := range rs {
				sums[r.ID] += r.Clicks
			}
		}
		want, _, err := chstore.ReadRanking(ctx, conn, click.KindLink, owner, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != len(want.IDs) || len(want.IDs) == 0 {
			t.Fatalf("owner %d: %d targets by parts, %d ranked", owner, len(sums), len(want.IDs))
		}
		for i, id := range want.IDs {
			if sums[id] != want.Clicks[i] {
				t.Errorf("owner %d, link %d: %d by parts, %d ranked", owner, id, sums[id], want.Clicks[i])
			}
		}
		if rowCount, err := chstore.ReadOwnerRows(ctx, conn, click.KindLink, owner); err != nil || rowCount != n {
			t.Errorf("owner %d: %d rows counted, %d read, %v", owner, rowCount, n, err)
		}
		rest, err := chstore.ReadOwnerPartRows(ctx, conn, click.KindLink, owner, names[:1])
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := rest[names[0]]; ok || len(rest) != len(rows)-1 {
			t.Errorf("owner %d: all but %s: %d parts", owner, names[0], len(rest))
		}
		for name, rs := range rest {
			if len(rs) != len(rows[name]) {
				t.Errorf("owner %d, %s: %d rows alone, %d with the others", owner, name, len(rs), len(rows[name]))
			}
		}
		if none, err := chstore.ReadOwnerPartRows(ctx, conn, click.KindLink, owner, names); err != nil || len(none) != 0 {
			t.Errorf("owner %d: all parts left out: %v, %v", owner, none, err)
		}
	}

	conn.Close()
	for name, read := range map[string]func() error{
		"owner rows": func() error { _, err := chstore.ReadOwnerRows(ctx, conn, click.KindLink, 1); return err },
		"part rows": func() error {
			_, err := chstore.ReadOwnerPartRows(ctx, conn, click.KindLink, 1, []string{"all_1_1_0"})
			return err
		},
		"engine": func() error { _, err := chstore.OwnerTableDistributed(ctx, conn); return err },
	} {
		if err := read(); !errors.Is(err, link.ErrUnavailable) {
			t.Errorf("%s, closed connection: %v, want link.ErrUnavailable", name, err)
		}
	}
}

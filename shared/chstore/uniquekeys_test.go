package chstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
	"kurz/shared/link"
)

// TestReadKeyed: the keyed reads give ReadTotals' numbers, and a target's
// key changes exactly when the rows its unique clicks are merged from do:
// a new visitor of that target, or a merge of the parts, never another
// target's click or a bot.
func TestReadKeyed(t *testing.T) {
	conn, _ := chtest.New(t)
	merges := chtest.StopMerges(t, conn, "click_uniques")
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	insertAll(t, conn, chtest.Clicks(now, 600))
	insertAll(t, conn, chtest.Clicks(now.Add(-time.Hour), 300)) // a second part
	ids := []int64{1, 2, 3, 40, 41, 999}                        // 41, 999: never visited

	check := func(when string) map[int64]chstore.Keyed {
		t.Helper()
		want, err := chstore.ReadTotals(ctx, conn, click.KindLink, ids, true)
		if err != nil {
			t.Fatal(err)
		}
		clicks, uniques := bothKeyed(t, conn, ids)
		for _, id := range ids {
			c, u := clicks[id], uniques[id]
			if c.Totals != (chstore.Totals{Clicks: want[id].Clicks}) || u.Totals != want[id] {
				t.Errorf("%s: link %d: keyed clicks %+v, uniques %+v; ReadTotals %+v", when, id, c.Totals, u.Totals, want[id])
			}
			if c.Key != u.Key {
				t.Errorf("%s: link %d: the clicks' key %q, the uniques' %q: no part changed between them", when, id, c.Key, u.Key)
			}
			if (c.Key == "") != (want[id].UniqueClicks == 0) {
				t.Errorf("%s: link %d: key %q with %d unique clicks", when, id, c.Key, want[id].UniqueClicks)
			}
		}
		return clicks
	}

	before := check("two inserts")
	if before[41].Key != "" || before[999].Key != "" {
		t.Errorf("unvisited links keyed: %+v, %+v", before[41], before[999])
	}

	// A human visit of link 1 and a bot on link 2: only link 1's rows change.
	human := click.Row{ClickID: 10_001, UnixNano: now.UnixNano(), Kind: click.KindLink, Class: click.ClassHuman,
		LinkID: 1, OwnerID: 2, Visitor: 5_000, Device: "desktop"}
	bot := human
	bot.ClickID, bot.LinkID, bot.OwnerID, bot.Class = 10_002, 2, 3, click.ClassBot
	insertAll(t, conn, []click.Row{human, bot})
	after := check("a human and a bot")
	if after[1].Key == before[1].Key {
		t.Errorf("link 1 gained a visitor and kept its key %q", after[1].Key)
	}
	for _, id := range []int64{2, 3, 40} {
		if after[id].Key != before[id].Key {
			t.Errorf("link %d: key %q -> %q without a visitor of its own", id, before[id].Key, after[id].Key)
		}
	}

	merges.Optimize("click_uniques")
	merged := check("merged")
	for _, id := range []int64{1, 2, 3, 40} {
		if merged[id].Key == after[id].Key {
			t.Errorf("link %d: parts merged, key %q kept", id, merged[id].Key)
		}
	}

	// Another visitor after the merge: link 1's rows now differ from every
	// earlier state, and so must its key (a key that repeats, such as a
	// count of rows, would serve an old state's count).
	human.ClickID, human.Visitor = 10_003, 5_001
	insertAll(t, conn, []click.Row{human})
	last := check("a visitor after the merge")
	for _, earlier := range []map[int64]chstore.Keyed{before, after, merged} {
		if last[1].Key == earlier[1].Key {
			t.Errorf("link 1: key %q again for other rows", last[1].Key)
		}
	}
}

// bothKeyed reads ids' clicks and unique clicks with their keys.
func bothKeyed(t *testing.T, conn driver.Conn, ids []int64) (clicks, uniques map[int64]chstore.Keyed) {
	t.Helper()
	ctx := context.Background()
	clicks, err := chstore.ReadClicksKeyed(ctx, conn, click.KindLink, ids)
	if err != nil {
		t.Fatal(err)
	}
	if uniques, err = chstore.ReadUniquesKeyed(ctx, conn, click.KindLink, ids); err != nil {
		t.Fatal(err)
	}
	return clicks, uniques
}

func TestReadKeyedBounds(t *testing.T) {
	conn, _ := chtest.New(t)
	ctx := context.Background()
	ids := make([]int64, chstore.MaxTotalsIDs+1)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	for name, read := range map[string]func(context.Context, []int64, click.Kind) (map[int64]chstore.Keyed, error){
		"clicks": func(ctx context.Context, ids []int64, k click.Kind) (map[int64]chstore.Keyed, error) {
			return chstore.ReadClicksKeyed(ctx, conn, k, ids)
		},
		"uniques": func(ctx context.Context, ids []int64, k click.Kind) (map[int64]chstore.Keyed, error) {
			return chstore.ReadUniquesKeyed(ctx, conn, k, ids)
		},
	} {
		if got, err := read(ctx, ids[:chstore.MaxTotalsIDs], click.KindLink); err != nil || len(got) != chstore.MaxTotalsIDs {
			t.Errorf("%s: a full page: %d ids, %v", name, len(got), err)
		}
		if _, err := read(ctx, ids, click.KindLink); err == nil || errors.Is(err, link.ErrUnavailable) {
			t.Errorf("%s: %d ids: %v, want a plain error", name, len(ids), err)
		}
		if _, err := read(ctx, ids[:1], click.Kind(99)); err == nil {
			t.Errorf("%s: unknown kind accepted", name)
		}
		if got, err := read(ctx, nil, click.KindLink); err != nil || len(got) != 0 {
			t.Errorf("%s: no ids: %v, %v", name, got, err)
		}
	}
	conn.Close()
	if _, err := chstore.ReadUniquesKeyed(ctx, conn, click.KindLink, ids[:1]); !errors.Is(err, link.ErrUnavailable) {
		t.Errorf("closed connection: %v, want link.ErrUnavailable", err)
	}
}

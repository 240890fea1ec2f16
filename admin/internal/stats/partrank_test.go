package stats_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/admin/internal/stats"
	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// TestRankingByParts: on one server the ranking is kept with its rows part
// by part, and after every change of the table it equals a ranking read
// whole (chstore.ReadRanking), reading only the parts that changed: none
// for a bot's visit or another owner's insert, the new part of an insert,
// the merged part of a merge (also one that took in an insert never seen).
func TestRankingByParts(t *testing.T) {
	conn, _ := chtest.New(t)
	insert(t, conn, fixture()) // owner 1: link 42 (6 humans), 43 (1)
	merges := chtest.StopMerges(t, conn, "click_owner_totals")
	svc := stats.New(conn)
	svc.KeepRankingsByParts(true)
	ctx := context.Background()
	var seq uint64 = 1000
	clicks := func(owner int64, link uint64, n int, class click.Class) {
		t.Helper()
		var rows []click.Row
		for range n {
			seq++
			r := visit(seq, link, t0, seq, "DE", "Chrome", "Windows", "", click.RefDirect)
			r.OwnerID, r.Class = uint64(owner), class
			rows = append(rows, r)
		}
		insert(t, conn, rows)
	}
	optimize := func() { merges.Optimize("click_owner_totals") }
	steps := []struct {
		name              string
		change            func()
		full, parts, hits int // reads the step makes
	}{
		{"first read", func() {}, 1, 0, 0},
		{"no change", func() {}, 0, 0, 1},
		{"a bot's visit", func() { clicks(1, 42, 1, click.ClassBot) }, 0, 0, 1},
		{"43 overtakes 42", func() { clicks(1, 43, 6, click.ClassHuman) }, 0, 1, 0},
		{"a new link", func() { clicks(1, 44, 2, click.ClassHuman) }, 0, 1, 0},
		{"another owner's clicks", func() { clicks(2, 45, 3, click.ClassHuman) }, 0, 0, 1},
		{"the parts merged", optimize, 0, 1, 0},
		{"an insert merged before the read", func() { clicks(1, 42, 2, click.ClassHuman); optimize() }, 0, 1, 0},
		{"a tie broken by id", func() { clicks(1, 41, 8, click.ClassHuman) }, 0, 1, 0},
	}
	for _, st := range steps {
		st.change()
		full0, parts0, hits0 := svc.PartRankCounts()
		got, want := rankedBoth(t, svc, conn, 1)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ranking %v, read whole %v", st.name, got, want)
		}
		full, parts, hits := svc.PartRankCounts()
		if full-full0 != st.full || parts-parts0 != st.parts || hits-hits0 != st.hits {
			t.Errorf("%s: read %d whole, %d parts, %d hits; want %d, %d, %d", st.name,
				full-full0, parts-parts0, hits-hits0, st.full, st.parts, st.hits)
		}
		if top, _ := svc.Ranking(ctx, click.KindLink, 1, 2); !reflect.DeepEqual(top, stats.Ranked{IDs: want.IDs[:2], Clicks: want.Clicks[:2]}) {
			t.Errorf("%s: the first 2: %v", st.name, top)
		}
	}
}

// rankedBoth returns owner's whole ranking from svc and as read whole.
func rankedBoth(t *testing.T, svc *stats.Service, conn driver.Conn, owner int64) (got, want stats.Ranked) {
	t.Helper()
	got, err := svc.Ranking(context.Background(), click.KindLink, owner, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want, _, err = chstore.ReadRanking(context.Background(), conn, click.KindLink, owner, 0); err != nil {
		t.Fatal(err)
	}
	return got, want
}

// TestRankingByPartsReadsAgain: a kept ranking older than partMaxAge is
// read whole again, and so is one whose update finds a part it cannot
// place (here: kept blocks made to reach above a new insert's); both
// answers equal a ranking read whole.
func TestRankingByPartsReadsAgain(t *testing.T) {
	conn, _ := chtest.New(t)
	chtest.StopMerges(t, conn, "click_owner_totals")
	insert(t, conn, fixture())
	svc := stats.New(conn)
	svc.KeepRankingsByParts(true)
	check := func(when string, wantFull int) {
		t.Helper()
		full0, _, _ := svc.PartRankCounts()
		got, want := rankedBoth(t, svc, conn, 1)
		if full, _, _ := svc.PartRankCounts(); !reflect.DeepEqual(got, want) || full-full0 != wantFull {
			t.Errorf("%s: %v (%d read whole), want %v (%d)", when, got, full-full0, want, wantFull)
		}
	}
	check("first", 1)
	check("kept", 0)
	svc.AgePartRanking(1, 11*time.Minute, 0)
	check("older than partMaxAge", 1)
	svc.AgePartRanking(1, 0, 1<<40)
	insert(t, conn, []click.Row{visit(5000, 42, t0, 5000, "DE", "Chrome", "Windows", "", click.RefDirect)})
	check("a part below the kept blocks", 1)
	check("kept again", 0)
}

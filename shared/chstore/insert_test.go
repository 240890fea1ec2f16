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
)

// TestInsertBlockFeedsAggregates inserts known rows and reads every
// aggregate table back: the numbers must be exact.
func TestInsertBlockFeedsAggregates(t *testing.T) {
	conn, _ := chtest.New(t)
	ctx := context.Background()
	ts := time.Date(2026, 3, 4, 10, 30, 0, 0, time.UTC).UnixNano()
	row := func(id uint64, class click.Class, visitor uint64, country, browser, ref string, cat click.RefCategory) click.Row {
		return click.Row{ClickID: id, UnixNano: ts + int64(id)*int64(time.Hour), Kind: click.KindLink, Class: class, LinkID: 42, OwnerID: 1,
			Visitor: visitor, Country: country, Browser: browser, OS: "Windows", Device: "desktop", RefHost: ref, RefCategory: cat, Language: "de"}
	}
	rows := []click.Row{
		row(1, click.ClassHuman, 100, "DE", "Chrome", "google.com", click.RefSearchEngine),
		row(2, click.ClassHuman, 100, "DE", "Chrome", "t.co", click.RefMicroblog),
		row(3, click.ClassHuman, 200, "US", "Firefox", "", click.RefDirect),
		row(4, click.ClassBot, 300, "US", "Other", "", click.RefDirect),
		row(5, click.ClassPreview, 400, "", "Other", "", click.RefDirect),
		{ClickID: 6, UnixNano: ts, Kind: click.KindQR, Class: click.ClassHuman, LinkID: 42, QRID: 7, Visitor: 100, Country: "FR"},
	}
	var b click.Block
	for i := range rows {
		b.Add(&rows[i])
	}
	if err := chstore.InsertBlock(ctx, conn, &b); err != nil {
		t.Fatal(err)
	}

	var clicks, uniq, bots, previews uint64
	// Distinct visitors live in click_uniques (0012); click_totals' own
	// column is not read and, since 0011, left empty.
	err := conn.QueryRow(ctx, `SELECT countIfMerge(humans), (SELECT `+chstore.VisitorsMerge+` FROM click_uniques WHERE kind = 'link' AND target_id = 42),
		countIfMerge(bots), countIfMerge(previews)
		FROM click_totals WHERE kind = 'link' AND target_id = 42`).Scan(&clicks, &uniq, &bots, &previews)
	if err != nil {
		t.Fatal(err)
	}
	if clicks != 3 || uniq != 2 || bots != 1 || previews != 1 {
		t.Fatalf("link totals: clicks %d unique %d bots %d previews %d, want 3 2 1 1", clicks, uniq, bots, previews)
	}
	if err := conn.QueryRow(ctx, `SELECT countIfMerge(humans) FROM click_totals WHERE kind = 'qr' AND target_id = 7`).Scan(&clicks); err != nil || clicks != 1 {
		t.Fatalf("qr totals: %d, %v; want 1", clicks, err)
	}

	var hours []struct {
		Hour   time.Time `ch:"hour"`
		Clicks uint64    `ch:"clicks"`
	}
	if err := conn.Select(ctx, &hours, `SELECT hour, countIfMerge(humans) AS clicks FROM click_hourly
		WHERE kind = 'link' AND target_id = 42 GROUP BY hour ORDER BY hour`); err != nil {
		t.Fatal(err)
	}
	if len(hours) != 5 || hours[0].Hour.Hour() != 11 || hours[0].Clicks != 1 || hours[3].Clicks != 0 {
		t.Fatalf("hourly = %+v", hours)
	}

	type dimCount struct {
		Dim   string `ch:"dim"`
		Value string `ch:"value"`
		N     uint64 `ch:"n"`
	}
	var dims []dimCount
	// click_events' dimensions are per day (0011, 0014, 0015); devices are
	// not compared here.
	if err := conn.Select(ctx, &dims, `SELECT dim, value, sum(hits) AS n FROM (`+breakdownExpanded+`)
		WHERE kind = 'link' AND target_id = 42 AND dim != 'device'
		GROUP BY dim, value ORDER BY dim, n DESC, value`); err != nil {
		t.Fatal(err)
	}
	want := []dimCount{
		{"browser", "Chrome", 2}, {"browser", "Firefox", 1},
		// Categories count humans only: the bot's and the preview's direct visits are not here.
		{"category", "direct", 1}, {"category", "microblog", 1}, {"category", "searchengine", 1},
		{"country", "DE", 2}, {"country", "US", 1},
		{"os", "Windows", 3},
		{"referrer", "", 1}, {"referrer", "google.com", 1}, {"referrer", "t.co", 1},
	}
	if len(dims) != len(want) {
		t.Fatalf("dims = %+v\nwant %+v", dims, want)
	}
	for i := range want {
		if dims[i] != want[i] {
			t.Fatalf("dims[%d] = %+v, want %+v", i, dims[i], want[i])
		}
	}
}

func TestInsertBlockErrors(t *testing.T) {
	conn, _ := chtest.New(t)
	var b click.Block
	if err := chstore.InsertBlock(context.Background(), conn, &b); err != nil {
		t.Fatalf("empty block: %v", err)
	}
	b.Add(&click.Row{ClickID: 1, Kind: click.KindLink})
	if err := conn.Exec(context.Background(), "DROP TABLE "+click.Table); err != nil {
		t.Fatal(err)
	}
	err := chstore.InsertBlock(context.Background(), conn, &b)
	if err == nil {
		t.Fatal("insert into a missing table succeeded")
	}
	if errors.Is(err, chstore.ErrSendFailed) {
		t.Fatalf("a refused prepare must not be reported as an unknown outcome: %v", err)
	}
}

// TestInsertRowsChunked: however an insert is split into blocks, the server
// stores it as one part, and the views see every row.
func TestInsertRowsChunked(t *testing.T) {
	conn, _ := chtest.New(t)
	ctx := context.Background()
	rows := make([]click.Row, 10)
	for i := range rows {
		rows[i] = click.Row{ClickID: uint64(i + 1), UnixNano: time.Now().UnixNano(), Kind: click.KindLink, Class: click.ClassHuman, Country: "DE"}
	}
	var blk click.Block
	for i, chunk := range []int{0, 1, 3, 10, 100} {
		link := uint64(100 + i)
		for j := range rows {
			rows[j].LinkID = link
		}
		if err := chstore.InsertRows(ctx, conn, &blk, rows, chstore.Chunking{Rows: chunk, Pause: time.Millisecond}); err != nil {
			t.Fatalf("chunks of %d: %v", chunk, err)
		}
		var n, humans uint64
		if err := conn.QueryRow(ctx, `SELECT count() FROM `+click.Table+` WHERE link_id = ?`, link).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, `SELECT countIfMerge(humans) FROM click_totals WHERE kind = 'link' AND target_id = ?`, link).Scan(&humans); err != nil {
			t.Fatal(err)
		}
		if n != 10 || humans != 10 {
			t.Fatalf("chunks of %d: %d raw rows, %d humans in click_totals; want 10, 10", chunk, n, humans)
		}
		if parts := newParts(t, conn); parts != uint64(i+1) {
			t.Fatalf("chunks of %d: %d parts written by %d inserts, want one per insert", chunk, parts, i+1)
		}
	}
}

// TestInsertRowsUnfinished: an insert abandoned after some blocks were sent
// reports an unknown outcome, and stores at most the blocks it sent (18.16
// stores them: a disconnect ends the data there; newer servers may store
// nothing). Never a row that was not sent, never a torn block.
func TestInsertRowsUnfinished(t *testing.T) {
	conn, _ := chtest.New(t)
	rows := make([]click.Row, 9)
	for i := range rows {
		rows[i] = click.Row{ClickID: uint64(i + 1), UnixNano: time.Now().UnixNano(), Kind: click.KindLink, Class: click.ClassHuman, LinkID: 7}
	}
	// The deadline ends the first pause: one block of 3 rows was sent.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var blk click.Block
	err := chstore.InsertRows(ctx, conn, &blk, rows, chstore.Chunking{Rows: 3, Pause: 10 * time.Second})
	if !errors.Is(err, chstore.ErrSendFailed) {
		t.Fatalf("abandoned insert: %v, want ErrSendFailed", err)
	}
	var n, maxID uint64
	for range 20 { // the server applies the disconnect asynchronously
		time.Sleep(100 * time.Millisecond)
		if err := conn.QueryRow(context.Background(), `SELECT count(), max(click_id) FROM `+click.Table).Scan(&n, &maxID); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
	}
	if !(n == 0 || n == 3 && maxID == 3) {
		t.Fatalf("abandoned insert stored %d rows (max click_id %d); want none or exactly the first block (3 rows)", n, maxID)
	}
	t.Logf("the server stored %d rows of the abandoned insert", n)
}

// newParts counts the parts inserts wrote into click_events (merged parts
// excluded; parts replaced by a merge are still listed for minutes).
func newParts(t *testing.T, conn driver.Conn) uint64 {
	t.Helper()
	var n uint64
	if err := conn.QueryRow(context.Background(), `SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = ? AND level = 0`, click.Table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

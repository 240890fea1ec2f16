package pgstore_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"kurz/shared/link"
	"kurz/shared/pgstore/pgtest"
)

// The counter roll-up sends no change notices (its transactions are
// marked, migration 0023), and the mark does not leak: ordinary writes on
// the same pool, even ones that change a counter with another column,
// still reach the edges.
func TestCounterWritesAreQuiet(t *testing.T) {
	st, dsn := pgtest.Store(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	uid := newLinkUser(t, st, "counter")
	var ids []int64
	for _, alias := range []string{"c1", "c2"} {
		l := &link.Link{UserID: uid, Alias: alias, LongURL: "https://example.com/" + alias, Type: "direct", Status: "private"}
		if err := st.CreateLink(ctx, l, nil); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	q := &link.QR{UserID: uid, Name: "q", Type: "text", Data: json.RawMessage(`"hi"`), Content: "hi",
		Background: "rgb(255,255,255)", Foreground: "rgb(0,0,0)"}
	if err := st.CreateQR(ctx, q, func(q *link.QR) { q.Code = "counterqr" }); err != nil {
		t.Fatal(err)
	}
	listener := pgtest.Listen(ctx, t, dsn)

	for _, exact := range []bool{false, true} {
		counts := []int64{5, 7}
		if exact {
			counts = []int64{3, 4} // a reconcile may lower counters
		}
		if n, err := st.SetLinkClicks(ctx, ids, counts, exact); err != nil || n != 2 {
			t.Fatalf("SetLinkClicks(exact=%v) = %d, %v; want 2 rows", exact, n, err)
		}
		if n, err := st.SetQRScans(ctx, []int64{q.ID}, counts[:1], exact); err != nil || n != 1 {
			t.Fatalf("SetQRScans(exact=%v) = %d, %v; want 1 row", exact, n, err)
		}
	}
	if got := pgtest.Notices(ctx, t, listener); len(got) != 0 {
		t.Fatalf("counter writes sent notices: %v", got)
	}
	var clicks int64
	if err := listener.QueryRow(ctx, "SELECT clicks FROM links WHERE id = $1", ids[1]).Scan(&clicks); err != nil || clicks != 4 {
		t.Fatalf("clicks = %d, %v; want 4", clicks, err)
	}

	// Several statements, so that the pool hands out the connection that
	// ran the marked transactions too.
	for i := range 4 {
		if _, err := pgtest.Pool(st).Exec(ctx, "UPDATE links SET long_url = $1 WHERE id = $2", "https://example.com/new"+string(rune('a'+i)), ids[0]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pgtest.Pool(st).Exec(ctx, "UPDATE links SET clicks = 0, long_url = 'https://example.com/reset' WHERE id = $1", ids[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := pgtest.Pool(st).Exec(ctx, "UPDATE qr_codes SET name = 'renamed' WHERE id = $1", q.ID); err != nil {
		t.Fatal(err)
	}
	got := pgtest.Notices(ctx, t, listener)
	if got["links"] != 5 || got["qr_codes"] != 1 {
		t.Fatalf("notices after ordinary writes = %v, want 5 links and 1 qr_codes", got)
	}
}

package stats_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"kurz/admin/internal/stats"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

// seedTargets creates links 1..nLinks and QR codes 1..nQRs of one user.
func seedTargets(t *testing.T, nLinks, nQRs int) *pgstore.Store {
	t.Helper()
	pool, _ := pgtest.New(t)
	ctx := context.Background()
	stmts := []string{
		`INSERT INTO users (id, email, username, api_key_hash) VALUES (1, 'a@example.com', 'a', '\x00')`,
		`INSERT INTO links (id, user_id, alias, long_url) SELECT g, 1, 'a' || g, 'https://example.com/' || g FROM generate_series(1, $1::int) g`,
		`INSERT INTO qr_codes (id, user_id, code, type, data, content) SELECT g, 1, 'q' || g, 'text', '"x"', 'x' FROM generate_series(1, $1::int) g`,
	}
	for i, s := range stmts {
		var err error
		switch i {
		case 0:
			_, err = pool.Exec(ctx, s)
		case 1:
			_, err = pool.Exec(ctx, s, nLinks)
		default:
			_, err = pool.Exec(ctx, s, nQRs)
		}
		if err != nil {
			t.Fatalf("seed: %v", err)
		}
	}
	return pgtest.Wrap(pool)
}

func counters(t *testing.T, st *pgstore.Store, table, col string) map[int64]int64 {
	t.Helper()
	rows, err := pgtest.Pool(st).Query(context.Background(), "SELECT id, "+col+" FROM "+table+" WHERE "+col+" <> 0")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	m := map[int64]int64{}
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		m[id] = n
	}
	return m
}

func wantCounters(t *testing.T, got, want map[int64]int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("counters = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("counters = %v, want %v", got, want)
		}
	}
}

func TestRollerStepAndReconcile(t *testing.T) {
	conn, _ := chtest.New(t)
	st := seedTargets(t, 3, 2)
	ctx := context.Background()
	now := time.Now().UTC()
	// Link 1 already clicked before the roller starts; link 3 has only a bot.
	insert(t, conn, []click.Row{visit(1, 1, now, 1, "DE", "Chrome", "Windows", "", click.RefDirect)})
	r := stats.NewRoller(conn, st, stats.RollupOptions{})
	if _, err := r.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	wantCounters(t, counters(t, st, "links", "clicks"), map[int64]int64{1: 1})

	bot := visit(4, 3, now, 9, "DE", "Other", "Other", "", click.RefDirect)
	bot.Class = click.ClassBot
	scan := visit(5, 1, now, 3, "DE", "Chrome", "Android", "", click.RefDirect)
	scan.Kind, scan.QRID = click.KindQR, 2
	old := visit(6, 2, now.Add(-30*24*time.Hour), 4, "DE", "Chrome", "Windows", "", click.RefDirect) // a spool replay, weeks late
	insert(t, conn, []click.Row{
		visit(2, 1, now, 2, "DE", "Chrome", "Windows", "", click.RefDirect),
		visit(3, 2, now, 2, "DE", "Chrome", "Windows", "", click.RefDirect),
		bot, scan, old,
	})
	n, err := r.Step(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("step changed %d counters, want 3 (links 1 and 2, qr code 2)", n)
	}
	wantCounters(t, counters(t, st, "links", "clicks"), map[int64]int64{1: 2, 2: 2})
	wantCounters(t, counters(t, st, "qr_codes", "scans"), map[int64]int64{2: 1})

	// Idempotent: nothing new, nothing changes.
	if n, err := r.Step(ctx); err != nil || n != 0 {
		t.Fatalf("second step: changed %d, %v", n, err)
	}
	// A step never lowers a counter; a reconcile corrects it.
	if _, err := pgtest.Pool(st).Exec(ctx, "UPDATE links SET clicks = 99 WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Step(ctx); err != nil {
		t.Fatal(err)
	}
	if got := counters(t, st, "links", "clicks")[2]; got != 99 {
		t.Fatalf("step lowered a counter to %d", got)
	}
	if n, err := r.Reconcile(ctx); err != nil || n != 1 {
		t.Fatalf("reconcile: changed %d, %v; want 1", n, err)
	}
	wantCounters(t, counters(t, st, "links", "clicks"), map[int64]int64{1: 2, 2: 2})
}

// TestRunRollupWithinSeconds: clicks inserted while RunRollup runs reach
// PostgreSQL within 5 s, for many links at once.
func TestRunRollupWithinSeconds(t *testing.T) {
	conn, _ := chtest.New(t)
	const nLinks = 12000 // more than one UPDATE batch
	st := seedTargets(t, nLinks, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		stats.RunRollup(ctx, conn, st, stats.RollupOptions{Every: 200 * time.Millisecond, Log: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	}()
	defer func() { cancel(); <-done }()
	time.Sleep(300 * time.Millisecond) // let the start-up reconcile pass
	rows := make([]click.Row, 0, nLinks+1)
	for i := range nLinks {
		rows = append(rows, visit(uint64(i+1), uint64(i+1), time.Now(), uint64(i), "DE", "Chrome", "Windows", "", click.RefDirect))
	}
	rows = append(rows, visit(nLinks+1, nLinks, time.Now(), 1, "DE", "Chrome", "Windows", "", click.RefDirect))
	insert(t, conn, rows)
	// The 5 s promise runs from the moment the clicks are in ClickHouse;
	// building and sending 12k rows under a loaded CI box can take seconds.
	start := time.Now()
	for {
		var total, top int64
		err := pgtest.Pool(st).QueryRow(context.Background(), "SELECT sum(clicks), max(clicks) FROM links").Scan(&total, &top)
		if err != nil {
			t.Fatal(err)
		}
		if total == nLinks+1 && top == 2 {
			t.Logf("rolled up %d links in %s", nLinks, time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("after 5 s: sum(clicks) = %d, max = %d; want %d and 2", total, top, nLinks+1)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// testWriter sends log lines to t.Log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// A step finds changed targets through click_touches: human clicks leave a
// touch at their insert time, bots none; a step reads only the touches
// since its watermark; a reconcile drops the days before yesterday.
func TestRollupTouches(t *testing.T) {
	conn, _ := chtest.New(t)
	st := seedTargets(t, 3, 0)
	ctx := context.Background()
	now := time.Now().UTC()
	bot := visit(3, 3, now, 9, "DE", "Other", "Other", "", click.RefDirect)
	bot.Class = click.ClassBot
	insert(t, conn, []click.Row{
		visit(1, 1, now, 1, "DE", "Chrome", "Windows", "", click.RefDirect),
		visit(2, 2, now, 2, "DE", "Chrome", "Windows", "", click.RefDirect),
		bot,
	})
	var touched []uint64
	var maxSkew int64
	rows, err := conn.Query(ctx, `SELECT target_id, toInt64(max(abs(toInt64(inserted_at) - toInt64(now()))))
		FROM click_touches WHERE kind = 'link' GROUP BY target_id ORDER BY target_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id uint64
		var skew int64
		if err := rows.Scan(&id, &skew); err != nil {
			t.Fatal(err)
		}
		touched, maxSkew = append(touched, id), max(maxSkew, skew)
	}
	rows.Close()
	if len(touched) != 2 || touched[0] != 1 || touched[1] != 2 || maxSkew > 60 {
		t.Fatalf("touched links %v (insert time off by up to %d s), want [1 2] at the insert time", touched, maxSkew)
	}

	r := stats.NewRoller(conn, st, stats.RollupOptions{})
	if _, err := r.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	wantCounters(t, counters(t, st, "links", "clicks"), map[int64]int64{1: 1, 2: 1})
	// Forget today's touches and the counters; then link 1 is touched now
	// and link 2 an hour ago, before the watermark.
	exec := func(sql string) {
		t.Helper()
		if err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	var today, yesterday uint32
	if err := conn.QueryRow(ctx, "SELECT toYYYYMMDD(now()), toYYYYMMDD(now() - 86400)").Scan(&today, &yesterday); err != nil {
		t.Fatal(err)
	}
	if err := conn.Exec(ctx, "ALTER TABLE click_touches DROP PARTITION ?", today); err != nil {
		t.Fatal(err)
	}
	if _, err := pgtest.Pool(st).Exec(ctx, "UPDATE links SET clicks = 0"); err != nil {
		t.Fatal(err)
	}
	exec(`INSERT INTO click_touches (inserted_at, kind, target_id) SELECT now(), 'link', toUInt64(1)`)
	exec(`INSERT INTO click_touches (inserted_at, kind, target_id) SELECT now() - 3600, 'link', toUInt64(2)`)
	if n, err := r.Step(ctx); err != nil || n != 1 {
		t.Fatalf("step changed %d, %v; want 1 (link 1)", n, err)
	}
	wantCounters(t, counters(t, st, "links", "clicks"), map[int64]int64{1: 1})

	exec(`INSERT INTO click_touches (inserted_at, kind, target_id) SELECT now() - 3 * 86400, 'link', toUInt64(3)`)
	exec(`INSERT INTO click_touches (inserted_at, kind, target_id) SELECT now() - 86400, 'link', toUInt64(3)`)
	if _, err := r.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	var days []uint32
	rows, err = conn.Query(ctx, `SELECT DISTINCT toUInt32(partition) FROM system.parts
		WHERE database = currentDatabase() AND table = 'click_touches' AND active ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var d uint32
		if err := rows.Scan(&d); err != nil {
			t.Fatal(err)
		}
		days = append(days, d)
	}
	rows.Close()
	for _, d := range days {
		if d != today && d != yesterday {
			t.Fatalf("touch partitions after a reconcile: %v, want only %d and %d", days, yesterday, today)
		}
	}
	if len(days) == 0 || days[len(days)-1] != today {
		t.Fatalf("touch partitions after a reconcile: %v, want today's (%d) kept", days, today)
	}
}

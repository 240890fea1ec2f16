package clicks

import (
	"context"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

func TestPushedHitsArriveExactlyOnce(t *testing.T) {
	conn, _ := chtest.New(t)
	const n, queue = 25_000, 8192
	p := start(t, Config{Conn: conn, SpoolDir: t.TempDir(), BatchSize: 1000, QueueSize: queue, FlushInterval: 100 * time.Millisecond})
	pushPaced(t, p, n, queue)
	waitRows(t, conn, n, 20*time.Second)
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := p.Stats(); st.Inserted != n || st.Replayed != st.Spooled || st.Dropped != 0 {
		t.Fatalf("stats %+v", st)
	}
	waitRows(t, conn, n, time.Second)
}

// TestEnrichedRowsAndAggregates follows hits with known headers into every
// table the stats read.
func TestEnrichedRowsAndAggregates(t *testing.T) {
	conn, _ := chtest.New(t)
	p := start(t, Config{Conn: conn, SpoolDir: t.TempDir(), FlushInterval: 50 * time.Millisecond})
	visit := func(ip, ua, ref, lang, country string, class click.Class) click.Hit {
		h := click.Hit{UnixNano: time.Now().UnixNano(), LinkID: 77, OwnerID: 3, Kind: click.KindLink, Class: class}
		h.IP = netip.MustParseAddr(ip).As16()
		copy(h.Country[:], country)
		h.SetUA([]byte(ua))
		h.SetReferer([]byte(ref))
		h.SetLang([]byte(lang))
		return h
	}
	chrome, firefox := testUAs[0], testUAs[2]
	hits := []click.Hit{
		visit("192.0.2.1", chrome, "https://www.google.com/search", "de-DE,de;q=0.9", "DE", click.ClassHuman),
		visit("192.0.2.1", chrome, "https://t.co/x", "de", "DE", click.ClassHuman), // same visitor
		visit("192.0.2.2", firefox, "", "en-US", "US", click.ClassHuman),
		visit("192.0.2.3", "Slackbot-LinkExpanding 1.0", "", "", "US", click.ClassPreview),
	}
	for i := range hits {
		if !p.TryPush(&hits[i]) {
			t.Fatal("push refused")
		}
	}
	waitRows(t, conn, uint64(len(hits)), 10*time.Second)
	waitInserted(t, p, uint64(len(hits))) // the aggregates are written before the insert is acknowledged

	var got []struct {
		Country  string `ch:"country"`
		Browser  string `ch:"browser"`
		OS       string `ch:"os"`
		Device   string `ch:"device"`
		RefHost  string `ch:"referrer_host"`
		RefCat   string `ch:"referrer_category"`
		Language string `ch:"language"`
		Class    string `ch:"class"`
	}
	if err := conn.Select(context.Background(), &got, `SELECT country, browser, os, device, referrer_host,
		referrer_category, language, class FROM `+click.Table+` ORDER BY ts, referrer_host DESC`); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"DE Chrome Windows desktop google.com searchengine de human",
		"DE Chrome Windows desktop t.co microblog de human",
		"US Firefox Linux desktop  direct en human",
		"US Other Other unknown  direct  preview",
	}
	seen := map[string]int{}
	for _, g := range got {
		seen[g.Country+" "+g.Browser+" "+g.OS+" "+g.Device+" "+g.RefHost+" "+g.RefCat+" "+g.Language+" "+g.Class]++
	}
	for _, w := range want {
		if seen[w] != 1 {
			t.Errorf("row %q: found %d times; rows: %+v", w, seen[w], got)
		}
	}

	var clicks, unique, previews uint64
	if err := conn.QueryRow(context.Background(), `SELECT countIfMerge(humans), (SELECT `+chstore.VisitorsMerge+` FROM click_uniques WHERE kind = 'link' AND target_id = 77),
		countIfMerge(previews) FROM click_totals WHERE kind = 'link' AND target_id = 77`).Scan(&clicks, &unique, &previews); err != nil {
		t.Fatal(err)
	}
	if clicks != 3 || unique != 2 || previews != 1 {
		t.Fatalf("totals: clicks %d unique %d previews %d, want 3 2 1", clicks, unique, previews)
	}
}

func TestFlushOnSize(t *testing.T) {
	conn, _ := chtest.New(t)
	p := start(t, Config{Conn: conn, SpoolDir: t.TempDir(), BatchSize: 100, FlushInterval: time.Hour})
	pushN(t, p, 250)
	waitRows(t, conn, 200, 10*time.Second) // two full batches, no timer involved
	time.Sleep(200 * time.Millisecond)
	if rows, _ := counts(t, conn); rows != 200 {
		t.Fatalf("%d rows before the half batch is due, want 200", rows)
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitRows(t, conn, 250, time.Second) // Close flushed the rest
}

func TestFlushOnInterval(t *testing.T) {
	conn, _ := chtest.New(t)
	p := start(t, Config{Conn: conn, SpoolDir: t.TempDir(), BatchSize: 1_000_000, FlushInterval: 200 * time.Millisecond})
	begin := time.Now()
	pushN(t, p, 10)
	waitRows(t, conn, 10, 5*time.Second)
	if took := time.Since(begin); took > 3*time.Second {
		t.Fatalf("10 rows took %s to arrive with a 200ms flush interval", took)
	}
}

// TestRestartReplaysSpool: a pipeline closed while ClickHouse is down
// leaves its clicks in the spool; the next pipeline on that directory
// inserts them once ClickHouse answers.
func TestRestartReplaysSpool(t *testing.T) {
	conn, _ := chtest.New(t)
	dir := t.TempDir()
	first := start(t, Config{Conn: deadConn(t), SpoolDir: dir, BatchSize: 300, FlushInterval: 50 * time.Millisecond})
	const n = 1000
	pushN(t, first, n)
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := first.Stats(); st.Spooled != n || st.Inserted != 0 || st.Dropped != 0 {
		t.Fatalf("first pipeline: %+v", st)
	}
	if got := spooledRows(t, dir); got != n {
		t.Fatalf("spool holds %d rows, want %d", got, n)
	}

	second := start(t, Config{Conn: conn, SpoolDir: dir, FlushInterval: 50 * time.Millisecond})
	waitRows(t, conn, n, 10*time.Second)
	waitFor(t, 5*time.Second, "the replay to be acknowledged", func() bool {
		st := second.Stats()
		return st.Replayed == n && st.SpoolSegments == 0
	})
	if err := second.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if segs := segmentFiles(t, dir); len(segs) != 0 {
		t.Fatalf("segments left after replay: %v", segs)
	}
}

// TestClickHouseOutage stops a real ClickHouse while clicks keep coming,
// restarts it, and expects every accepted click exactly once.
func TestClickHouseOutage(t *testing.T) {
	srv := chtest.StartServer(t)
	conn, _ := chtest.NewOn(t, srv.DSN())
	p := start(t, Config{Conn: conn, SpoolDir: t.TempDir(), BatchSize: 2000, FlushInterval: 100 * time.Millisecond})

	var accepted atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // a steady stream of visits, ~5k/s
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			h := testHit(i)
			if p.TryPush(&h) {
				accepted.Add(1)
			}
			if i%50 == 0 {
				time.Sleep(10 * time.Millisecond)
			}
		}
	}()
	waitFor(t, 10*time.Second, "rows before the outage", func() bool { r, _ := counts(t, conn); return r > 500 })
	srv.Stop(t)
	waitFor(t, 10*time.Second, "spooling during the outage", func() bool { st := p.Stats(); return st.ClickHouseDown && st.Spooled > 1000 })
	srv.Start(t)
	time.Sleep(300 * time.Millisecond) // keep pushing while the replayer catches up
	close(stop)
	<-done

	waitRows(t, conn, uint64(accepted.Load()), 30*time.Second)
	st := p.Stats()
	if st.Dropped != 0 || st.Replayed == 0 {
		t.Fatalf("stats after the outage: %+v", st)
	}
	waitFor(t, 5*time.Second, "an empty spool", func() bool { return p.Stats().SpoolSegments == 0 })
	t.Logf("accepted %d, spooled %d, replayed %d, duplicates skipped %d", accepted.Load(), st.Spooled, st.Replayed, st.DuplicatesSkipped)
}

// TestCloseUnderConcurrentPushesLosesNothing: every push that returned true
// is either in ClickHouse or in the spool after Close.
func TestCloseUnderConcurrentPushesLosesNothing(t *testing.T) {
	conn, _ := chtest.New(t)
	dir := t.TempDir()
	p := start(t, Config{Conn: conn, SpoolDir: dir, BatchSize: 2000, QueueSize: 4096, OverflowSize: 4096, FlushInterval: 50 * time.Millisecond})
	var (
		accepted atomic.Int64
		wg       sync.WaitGroup
	)
	for g := range 4 {
		wg.Go(func() {
			for i := g; ; i += 4 {
				h := testHit(i)
				if p.TryPush(&h) {
					accepted.Add(1)
				} else if p.closed.Load() {
					return
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	st := p.Stats()
	rows, unique := counts(t, conn)
	spooled := spooledRows(t, dir)
	t.Logf("accepted %d: %d in ClickHouse, %d in the spool; %+v", accepted.Load(), rows, spooled, st)
	if rows != unique || int64(rows)+int64(spooled) != accepted.Load() {
		t.Fatalf("accepted %d, but ClickHouse holds %d (%d distinct) and the spool %d", accepted.Load(), rows, unique, spooled)
	}
	if h := testHit(0); p.TryPush(&h) {
		t.Fatal("TryPush after Close returned true")
	}
}

func TestSpoolFullDropsAndCounts(t *testing.T) {
	p := start(t, Config{Conn: deadConn(t), SpoolDir: t.TempDir(), SpoolMaxBytes: 4096, BatchSize: 10, FlushInterval: 20 * time.Millisecond})
	pushN(t, p, 200)
	err := p.Close(context.Background())
	st := p.Stats()
	if st.SpoolFull == 0 || st.Dropped != st.SpoolFull || st.Spooled+st.Dropped != 200 || st.SpoolBytes > 4096 {
		t.Fatalf("stats %+v", st)
	}
	if err == nil && st.Dropped > 0 {
		t.Log("all drops happened before Close")
	}
	if got := spooledRows(t, p.cfg.SpoolDir); got != int(st.Spooled) {
		t.Fatalf("spool holds %d rows, Spooled says %d", got, st.Spooled)
	}
}

func TestSpoolDirIsExclusive(t *testing.T) {
	dir := t.TempDir()
	start(t, Config{Conn: deadConn(t), SpoolDir: dir})
	if p, err := New(Config{Conn: deadConn(t), Enricher: testEnricher(t), SpoolDir: dir}); err == nil {
		p.Close(context.Background())
		t.Fatal("a second pipeline opened a spool dir in use")
	}
}

func TestRejectsInvalidHits(t *testing.T) {
	p := start(t, Config{Conn: deadConn(t), SpoolDir: t.TempDir()})
	tests := []struct {
		name string
		mod  func(*click.Hit)
	}{
		{"kind zero", func(h *click.Hit) { h.Kind = 0 }},
		{"kind unknown", func(h *click.Hit) { h.Kind = 9 }},
		{"class unknown", func(h *click.Hit) { h.Class = 4 }},
	}
	for _, tt := range tests {
		h := testHit(0)
		tt.mod(&h)
		if p.TryPush(&h) {
			t.Errorf("%s: accepted", tt.name)
		}
	}
	if got := p.Stats().Rejected; got != uint64(len(tests)) {
		t.Fatalf("Rejected = %d, want %d", got, len(tests))
	}
}

func TestHeartbeatReportsWatermark(t *testing.T) {
	conn, _ := chtest.New(t)
	p := start(t, Config{Conn: conn, SpoolDir: t.TempDir(), FlushInterval: 50 * time.Millisecond, WriterID: "edge-test"})
	pushN(t, p, 10)
	waitRows(t, conn, 10, 5*time.Second)
	var (
		wm, at  time.Time
		lag     uint32
		pending uint64
	)
	waitFor(t, 5*time.Second, "a heartbeat with nothing pending", func() bool {
		err := conn.QueryRow(context.Background(), `SELECT argMax(watermark, at), max(at), argMax(lag_ms, at), argMax(pending, at)
			FROM ingest_heartbeats WHERE writer = 'edge-test'`).Scan(&wm, &at, &lag, &pending)
		return err == nil && at.Unix() > 0 && pending == 0
	})
	if wm.After(at) || at.Sub(wm) > 2*time.Second || time.Since(at) > 10*time.Second {
		t.Fatalf("heartbeat at %s watermark %s lag %dms", at, wm, lag)
	}
}

// waitInserted waits until the pipeline has had n rows acknowledged.
func waitInserted(t testing.TB, p *Pipeline, n uint64) {
	t.Helper()
	waitFor(t, 10*time.Second, "acknowledged inserts", func() bool { return p.Stats().Inserted >= n })
}

func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestOverflowReachesClickHouseThroughTheSpool: hits that find the queue
// full are spooled by the spooler and replayed, not lost.
func TestOverflowReachesClickHouseThroughTheSpool(t *testing.T) {
	conn, _ := chtest.New(t)
	p := start(t, Config{Conn: conn, SpoolDir: t.TempDir(), QueueSize: 1, Workers: 1, FlushInterval: 50 * time.Millisecond})
	const n = 2000
	pushN(t, p, n)
	waitRows(t, conn, n, 15*time.Second)
	waitFor(t, 5*time.Second, "an empty spool", func() bool { return p.Stats().SpoolSegments == 0 && p.Stats().SpoolRows == 0 })
	st := p.Stats()
	if st.Overflowed == 0 || st.Replayed != st.Overflowed || st.Dropped != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestQueueDrainsWhileInserting: while ClickHouse takes a second over each
// insert (a view that sleeps), the worker keeps taking hits from the queue
// into the next batch, so a steady 1,500 hits/s never fill a 256-hit queue
// and nothing takes the spool path.
func TestQueueDrainsWhileInserting(t *testing.T) {
	conn, _ := chtest.New(t)
	ctx := context.Background()
	if err := conn.Exec(ctx, `CREATE MATERIALIZED VIEW slow_insert ENGINE = Null AS SELECT sleep(1) AS s FROM `+click.Table); err != nil {
		t.Fatal(err)
	}
	var blk click.Block
	begin := time.Now()
	if err := chstore.InsertRows(ctx, conn, &blk, chtest.Clicks(time.Now(), 10), chstore.DefaultChunking()); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took < 900*time.Millisecond {
		t.Fatalf("an insert took %s: the sleeping view does not slow inserts, so this test proves nothing", took)
	}
	const queue, perTick, n = 256, 15, 4500
	p := start(t, Config{Conn: conn, SpoolDir: t.TempDir(), QueueSize: queue, OverflowSize: 64, FlushInterval: 200 * time.Millisecond})
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for from := 0; from < n; from += perTick {
		<-tick.C
		pushRange(t, p, from, from+perTick)
	}
	waitInserted(t, p, n)
	st := p.Stats()
	if st.Overflowed != 0 || st.Spooled != 0 || st.Dropped != 0 || st.Inserted != n {
		t.Fatalf("hits took the spool path while a batch was being inserted: %+v", st)
	}
	if st.Batches < 2 || st.Batches > 6 {
		t.Fatalf("%d inserts for 3 s of hits with 1 s inserts, want the batches to grow while one is sent: %+v", st.Batches, st)
	}
}

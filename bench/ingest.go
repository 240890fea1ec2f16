package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"golang.org/x/sync/errgroup"

	"kurz/shared/chstore"
	"kurz/shared/click"
)

// ingestPhases is where one pipeline's time goes, summed over its batches.
type ingestPhases struct {
	Enrich time.Duration // click.Enricher.Enrich of every hit
	// Insert is chstore.InsertRows: columns, driver encoding, compression,
	// network, the pauses between blocks and the server's insert + views.
	Insert time.Duration
}

func (p *ingestPhases) add(q ingestPhases) {
	p.Enrich += q.Enrich
	p.Insert += q.Insert
}

// ingestReport is the click-ingest scenario's result.
type ingestReport struct {
	Clicks     int64   `json:"clicks"`
	Batch      int     `json:"batch"`
	Chunk      int     `json:"chunk"`
	Workers    int     `json:"workers"`
	Seconds    float64 `json:"seconds"`
	RowsPerSec float64 `json:"rows_per_second"`
	Counted    int64   `json:"counted"`
	OwnerID    int64   `json:"owner_id"`
	// The flow's shape (--rate, --flush, --links, --dist): with a rate,
	// each worker inserts what arrived during one flush interval, as the
	// edge does at that rate.
	Rate     float64 `json:"rate,omitempty"`
	FlushSec float64 `json:"flush_seconds,omitempty"`
	Links    int     `json:"links"`
	Dist     string  `json:"dist"`
	// Per phase: rows per second of that phase's own time (summed over
	// workers, so with --workers > 1 they are per worker).
	EnrichRowsPerSec float64 `json:"enrich_rows_per_second"`
	InsertRowsPerSec float64 `json:"insert_rows_per_second"`
	ClientCPUSeconds float64 `json:"client_cpu_seconds"`
	ServerCPUSeconds float64 `json:"server_cpu_seconds,omitempty"` // ClickHouse (--server-pid), during the inserts
	// ServerCPUSettled is ClickHouse's CPU during the inserts plus the
	// --settle seconds after them (the merges the inserts cause), and
	// ServerMicrosPerClick the same per inserted click.
	SettleSec            float64 `json:"settle_seconds,omitempty"`
	ServerCPUSettled     float64 `json:"server_cpu_settled_seconds,omitempty"`
	ServerMicrosPerClick float64 `json:"server_us_per_click,omitempty"`
	LoadAvg              string  `json:"load_average,omitempty"`
	// Raw*: the same rows into a copy of the clicks table without the
	// materialized views (--compare-raw): what the views cost the server.
	RawRowsPerSec      float64 `json:"raw_rows_per_second,omitempty"`
	RawServerCPUSecond float64 `json:"raw_server_cpu_seconds,omitempty"`
}

// ingestFlow is what the workers insert and how fast.
type ingestFlow struct {
	table string
	n     int64
	batch int
	chunk chstore.Chunking
	// rate > 0 paces the workers: every flush each worker inserts the
	// rate*flush/workers clicks that arrived meanwhile (its first flush is
	// offset by its index, like the edge's workers). rate 0 inserts
	// batches back to back, as fast as the server takes them.
	rate  float64
	flush time.Duration
	links linkPicker
	owner int64
	// visitors > 0 draws each click's client IP from that many; 0 keeps
	// 256 IPs per header template.
	visitors int
}

// ingestCmd measures the edge pipeline's path into ClickHouse in isolation,
// shaped like edge/internal/clicks: each of --workers goroutines (2)
// enriches hits into rows (shared/click Enricher) until it holds --batch
// rows (50k), inserts them with chstore.InsertRows in blocks of --chunk
// rows (the edge's chstore.DefaultChunking), and only then enriches again.
// With --rate, the workers insert what arrives at that rate once per
// --flush instead, and --settle keeps measuring ClickHouse's CPU for the
// merges that follow: the edge's real flow is --workers 1 --flush 5s
// --batch 200000 (one worker whose sender inserts while it fills the next
// batch; 225k-row inserts every 5 s at 45k clicks/s, capped at 200k).
// (edge/internal is not importable from bench: its queue and spool are not
// part of this number.)
func ingestCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	dsn := fs.String("clickhouse", "", "ClickHouse DSN (a bench database: rows are added to clicks)")
	n := fs.Int64("clicks", 3_000_000, "clicks to insert")
	batch := fs.Int("batch", 50_000, "rows per INSERT (the edge pipeline's cap is 200k); with --rate, the most rows per INSERT")
	chunk := fs.Int("chunk", chstore.DefaultChunking().Rows, "rows per data block of an INSERT (the edge pipeline's default)")
	workers := fs.Int("workers", 2, "enrich+insert goroutines, each enriching and inserting in turn (the edge pipeline has one worker, which fills the next batch while its sender inserts)")
	rate := fs.Float64("rate", 0, "clicks per second arriving at the pipeline (0: insert back to back, as fast as possible)")
	flush := fs.Duration("flush", time.Second, "with --rate: each worker inserts once per this interval (the edge's KURZ_CLICK_FLUSH_INTERVAL, 5 s by default)")
	links := fs.Int("links", 1000, "distinct links the clicks go to")
	dist := fs.String("dist", "cycle", "how clicks pick their link: cycle (round robin), zipf (bench run's popularity, --zipf-s) or uniform (every link equally hot)")
	zipfS := fs.Float64("zipf-s", 1.1, "Zipf exponent s for --dist zipf (> 1)")
	visitors := fs.Int("visitors", 0, "distinct client IPs the clicks come from (0: 256 per header template)")
	settle := fs.Duration("settle", 0, "with --server-pid: keep measuring ClickHouse's CPU this long after the last insert (its merges)")
	serverPID := fs.Int("server-pid", 0, "ClickHouse server pid: report its CPU time")
	table := fs.String("table", click.Table, "insert into this table instead (e.g. one made with CREATE TABLE t AS "+click.Table+": the raw insert without the materialized views)")
	compareRaw := fs.Bool("compare-raw", false, "also insert the same rows into a view-less copy of clicks (bench_ingest_raw, dropped afterwards)")
	jsonOut := fs.String("json", "", "write the result as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dsn == "" || *n <= 0 || *batch <= 0 || *workers <= 0 || *links <= 0 || *rate < 0 || *flush <= 0 || *visitors < 0 {
		return errors.New("--clickhouse, positive --clicks, --batch, --workers, --links and --flush, and a non-negative --rate and --visitors are required")
	}
	if !validIdent(*table) {
		return fmt.Errorf("--table %q: not a plain table name", *table)
	}
	picker, err := newLinkPicker(*dist, *links, *zipfS)
	if err != nil {
		return err
	}
	tables, err := loadTables("")
	if err != nil {
		return err
	}
	ch, err := chstore.Open(ctx, *dsn)
	if err != nil {
		return err
	}
	defer ch.Close()
	enr, err := click.NewEnricher(click.EnricherConfig{Secret: []byte("bench-ingest")})
	if err != nil {
		return err
	}
	// A fresh owner id keeps this scenario's rows apart from everything else.
	owner := int64(1<<40 + rand.IntN(1<<30))
	rep := &ingestReport{Clicks: *n, Batch: *batch, Chunk: *chunk, Workers: *workers, OwnerID: owner,
		Links: *links, Dist: *dist}
	if *rate > 0 {
		rep.Rate, rep.FlushSec = *rate, flush.Seconds()
	}
	chunking := chstore.DefaultChunking()
	chunking.Rows = *chunk
	flow := ingestFlow{table: *table, n: *n, batch: *batch, chunk: chunking, rate: *rate, flush: *flush,
		links: picker, owner: owner, visitors: *visitors}
	hits := hitTemplates(tables, 1024)
	// The raw insert goes first: the views' background merges after the
	// main run would slow it down.
	if *compareRaw {
		if rep.RawRowsPerSec, rep.RawServerCPUSecond, err = ingestRaw(ctx, ch, enr, hits, flow, *workers, *serverPID); err != nil {
			return err
		}
	}
	var srv procTree
	var srvBefore procCPU
	if *serverPID > 0 {
		srv = newProcTree(*serverPID)
		if srvBefore, err = srv.cpu(); err != nil {
			return err
		}
	}
	self, err := startSampler(os.Getpid())
	if err != nil {
		return err
	}
	start := time.Now()
	phases, err := runIngest(ctx, ch, enr, hits, flow, *workers)
	el := time.Since(start)
	cu, _ := self.stop()
	if *serverPID > 0 {
		if after, serr := srv.cpu(); serr == nil {
			rep.ServerCPUSeconds = after.seconds() - srvBefore.seconds()
		}
	}
	if err != nil {
		return err
	}
	if *serverPID > 0 && *settle > 0 {
		if err := sleepCtx(ctx, *settle); err != nil {
			return err
		}
		if after, serr := srv.cpu(); serr == nil {
			rep.SettleSec = settle.Seconds()
			rep.ServerCPUSettled = after.seconds() - srvBefore.seconds()
		}
	}
	if cpu := max(rep.ServerCPUSettled, rep.ServerCPUSeconds); cpu > 0 {
		rep.ServerMicrosPerClick = cpu / float64(*n) * 1e6
	}
	rep.Seconds, rep.RowsPerSec, rep.ClientCPUSeconds = el.Seconds(), float64(*n)/el.Seconds(), cu.CPUSeconds
	rate1 := func(d time.Duration) float64 { return float64(*n) / max(d.Seconds(), 1e-9) }
	rep.EnrichRowsPerSec, rep.InsertRowsPerSec = rate1(phases.Enrich), rate1(phases.Insert)
	rep.LoadAvg, _ = loadAverage()
	var counted uint64
	if err := ch.QueryRow(ctx, `SELECT count() FROM `+*table+` WHERE owner_id = ?`, uint64(owner)).Scan(&counted); err != nil {
		return fmt.Errorf("count ingested clicks: %w", err)
	}
	rep.Counted = int64(counted)
	rep.write(stdout, phases)
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, rep); err != nil {
			return err
		}
	}
	if rep.Counted != rep.Clicks {
		return fmt.Errorf("ingest lost %d clicks", rep.Clicks-rep.Counted)
	}
	return nil
}

func (r *ingestReport) write(w io.Writer, p ingestPhases) {
	fmt.Fprintf(w, "== ingest: %d clicks, batches of %d in blocks of %d, %d worker(s): %.2f s = %s rows/s; in ClickHouse: %d (lost %d)\n",
		r.Clicks, r.Batch, r.Chunk, r.Workers, r.Seconds, human(r.RowsPerSec), r.Counted, r.Clicks-r.Counted)
	if r.Rate > 0 {
		fmt.Fprintf(w, "  flow         %s clicks/s, each worker inserts every %.1f s; %d links, %s\n", human(r.Rate), r.FlushSec, r.Links, r.Dist)
	} else {
		fmt.Fprintf(w, "  flow         back to back; %d links, %s\n", r.Links, r.Dist)
	}
	fmt.Fprintf(w, "  phases (sum over workers)  enrich %.2f s = %s rows/s | insert %.2f s = %s rows/s\n",
		p.Enrich.Seconds(), human(r.EnrichRowsPerSec), p.Insert.Seconds(), human(r.InsertRowsPerSec))
	fmt.Fprintf(w, "  cpu          bench %.2f CPU-s", r.ClientCPUSeconds)
	if r.ServerCPUSeconds > 0 {
		fmt.Fprintf(w, ", ClickHouse %.2f CPU-s (%s rows per server-CPU-second)", r.ServerCPUSeconds, human(float64(r.Clicks)/r.ServerCPUSeconds))
	}
	fmt.Fprintf(w, "; load average %s\n", r.LoadAvg)
	if r.ServerCPUSettled > 0 {
		fmt.Fprintf(w, "  ClickHouse   %.2f CPU-s over the inserts + %.0f s: %.2f CPU-s per 1M rows, %.2f µs per click\n",
			r.ServerCPUSettled, r.SettleSec, r.ServerCPUSettled/float64(r.Clicks)*1e6, r.ServerMicrosPerClick)
	}
	if r.RawRowsPerSec > 0 {
		fmt.Fprintf(w, "  without the materialized views (same rows, view-less copy of clicks): %s rows/s, ClickHouse %.2f CPU-s\n", human(r.RawRowsPerSec), r.RawServerCPUSecond)
	}
}

// ingestRaw inserts the same clicks into bench_ingest_raw, a copy of the
// clicks table without materialized views, and drops it: rows/s and
// server CPU-s of the raw insert alone.
func ingestRaw(ctx context.Context, ch driver.Conn, enr *click.Enricher, hits []click.Hit, flow ingestFlow, workers int, serverPID int) (float64, float64, error) {
	const table = "bench_ingest_raw"
	if err := ch.Exec(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
		return 0, 0, fmt.Errorf("drop %s: %w", table, err)
	}
	if err := ch.Exec(ctx, "CREATE TABLE "+table+" AS "+click.Table); err != nil {
		return 0, 0, fmt.Errorf("create %s: %w", table, err)
	}
	defer ch.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+table) //nolint:errcheck // best effort
	var srv *procSampler
	if serverPID > 0 {
		var err error
		if srv, err = startSampler(serverPID); err != nil {
			return 0, 0, err
		}
	}
	flow.table = table
	start := time.Now()
	_, err := runIngest(ctx, ch, enr, hits, flow, workers)
	el := time.Since(start)
	var cpu float64
	if srv != nil {
		if u, err := srv.stop(); err == nil {
			cpu = u.CPUSeconds
		}
	}
	if err != nil {
		return 0, 0, fmt.Errorf("raw insert: %w", err)
	}
	return float64(flow.n) / el.Seconds(), cpu, nil
}

// runIngest inserts flow.n clicks with workers goroutines and returns
// their summed phase times.
func runIngest(ctx context.Context, ch driver.Conn, enr *click.Enricher, hits []click.Hit, flow ingestFlow, workers int) (ingestPhases, error) {
	var (
		mu    sync.Mutex
		total ingestPhases
	)
	g, gctx := errgroup.WithContext(ctx)
	start := time.Now()
	for wi := range workers {
		w := ingestWorker{flow: flow, ch: ch, enr: enr, hits: hits,
			from: flow.n * int64(wi) / int64(workers), to: flow.n * int64(wi+1) / int64(workers),
			rng: rand.New(rand.NewPCG(uint64(wi), 0x696e67657374))}
		if flow.links.dist == "zipf" {
			w.zipf = rand.NewZipf(w.rng, flow.links.s, 1, uint64(flow.links.n-1))
		}
		if flow.rate > 0 {
			w.perFlush = rowsPerFlush(flow.rate, flow.flush, workers)
			w.next = start.Add(time.Duration(wi) * flow.flush / time.Duration(workers))
		}
		g.Go(func() error {
			p, err := w.run(gctx)
			mu.Lock()
			total.add(p)
			mu.Unlock()
			return err
		})
	}
	return total, g.Wait()
}

// rowsPerFlush is what one of workers holds after a flush interval when
// rate clicks per second arrive: the size of its inserts.
func rowsPerFlush(rate float64, flush time.Duration, workers int) int {
	return max(1, int(rate*flush.Seconds()/float64(workers)))
}

// ingestWorker is one pipeline worker over clicks [from, to).
type ingestWorker struct {
	flow     ingestFlow
	ch       driver.Conn
	enr      *click.Enricher
	hits     []click.Hit
	from, to int64
	rng      *rand.Rand
	zipf     *rand.Zipf // with --dist zipf: draws over rng
	perFlush int        // with a rate: rows per insert
	next     time.Time  // with a rate: when the next insert is due
}

func (w *ingestWorker) run(ctx context.Context) (ingestPhases, error) {
	var p ingestPhases
	size := w.flow.batch
	if w.perFlush > 0 {
		size = min(size, w.perFlush)
	}
	rows := make([]click.Row, 0, size)
	var blk click.Block
	for i := w.from; i < w.to; {
		if w.perFlush > 0 {
			if err := sleepCtx(ctx, time.Until(w.next)); err != nil {
				return p, err
			}
			w.next = w.next.Add(w.flow.flush)
		}
		t0 := time.Now()
		rows = rows[:0]
		for ; i < w.to && len(rows) < size; i++ {
			rows = append(rows, w.enr.Enrich(w.hit(i, t0.UnixNano()+int64(len(rows)))))
		}
		t1 := time.Now()
		err := chstore.InsertRowsInto(ctx, w.ch, w.flow.table, &blk, rows, w.flow.chunk)
		p.Enrich += t1.Sub(t0)
		p.Insert += time.Since(t1)
		if err != nil {
			return p, err
		}
	}
	return p, nil
}

// hit is click i: a header template, its link and its client IP.
func (w *ingestWorker) hit(i, unixNano int64) *click.Hit {
	h := w.hits[i%int64(len(w.hits))]
	if w.flow.links.dist != "cycle" {
		h = w.hits[w.rng.IntN(len(w.hits))]
	}
	h.UnixNano = unixNano // the edge stamps hits at capture, not here
	h.LinkID, h.OwnerID = w.link(i), w.flow.owner
	if w.flow.visitors > 0 {
		v := w.rng.IntN(w.flow.visitors)
		h.IP[12], h.IP[13], h.IP[14], h.IP[15] = 198, byte(v>>16), byte(v>>8), byte(v)
	} else {
		h.IP[15] = byte(i)
	}
	return &h
}

// linkPicker chooses the link (1..n) of each click.
type linkPicker struct {
	dist string
	n    int
	s    float64  // Zipf exponent
	perm []uint32 // Zipf rank -> link index, shared read-only
}

func newLinkPicker(dist string, n int, s float64) (linkPicker, error) {
	p := linkPicker{dist: dist, n: n, s: s}
	switch dist {
	case "cycle", "uniform":
	case "zipf":
		if s <= 1 {
			return p, fmt.Errorf("--zipf-s must be > 1, got %g", s)
		}
		p.perm = rankPermutation(n, 42)
	default:
		return p, fmt.Errorf("--dist %q: want cycle, zipf or uniform", dist)
	}
	return p, nil
}

// link returns the link id (1..links) of click i.
func (w *ingestWorker) link(i int64) int64 {
	p := &w.flow.links
	switch p.dist {
	case "uniform":
		return 1 + int64(w.rng.IntN(p.n))
	case "zipf":
		return 1 + int64(p.perm[w.zipf.Uint64()])
	}
	return 1 + i%int64(p.n)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// hitTemplates builds n visits with headers drawn from the tables.
func hitTemplates(t *headerTables, n int) []click.Hit {
	r := rand.New(rand.NewPCG(7, 7))
	out := make([]click.Hit, n)
	for i := range out {
		h := &out[i]
		h.Kind = click.KindLink
		ua := t.agents.pick(r.Uint64())
		if t.agents.class[ua] != "human" {
			h.Class = click.ClassBot
		}
		h.SetUA([]byte(t.agents.values[ua]))
		h.SetLang([]byte(t.languages.values[t.languages.pick(r.Uint64())]))
		if ref := t.referrers.values[t.referrers.pick(r.Uint64())]; ref != "-" {
			h.SetReferer([]byte(ref))
		}
		c := t.countries.values[t.countries.pick(r.Uint64())]
		h.Country = [2]byte{c[0], c[1]}
		h.IP = [16]byte{10: 0xff, 11: 0xff, 12: 203, 13: 0, 14: byte(i >> 8), 15: byte(i)}
	}
	return out
}

// validIdent reports whether s is a plain ClickHouse table name, optionally
// with its database (it is spliced into SQL: names cannot be parameters).
func validIdent(s string) bool {
	db, table, found := strings.Cut(s, ".")
	if !found {
		db, table = "x", s
	}
	for _, part := range []string{db, table} {
		if part == "" {
			return false
		}
		for i, c := range part {
			if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
				return false
			}
		}
	}
	return true
}

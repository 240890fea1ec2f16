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
	// Per phase: rows per second of that phase's own time (summed over
	// workers, so with --workers > 1 they are per worker).
	EnrichRowsPerSec float64 `json:"enrich_rows_per_second"`
	InsertRowsPerSec float64 `json:"insert_rows_per_second"`
	ClientCPUSeconds float64 `json:"client_cpu_seconds"`
	ServerCPUSeconds float64 `json:"server_cpu_seconds,omitempty"` // ClickHouse (--server-pid)
	LoadAvg          string  `json:"load_average,omitempty"`
	// Raw*: the same rows into a copy of the clicks table without the
	// materialized views (--compare-raw): what the views cost the server.
	RawRowsPerSec      float64 `json:"raw_rows_per_second,omitempty"`
	RawServerCPUSecond float64 `json:"raw_server_cpu_seconds,omitempty"`
}

// ingestCmd measures the edge pipeline's path into ClickHouse in isolation,
// shaped like edge/internal/clicks with its defaults: each of --workers
// goroutines (the edge runs 2) enriches hits into rows (shared/click
// Enricher) until it holds --batch rows (the edge's default: 50k), inserts
// them with chstore.InsertRows in blocks of --chunk rows (the edge's
// default: chstore.DefaultChunking), and only then enriches again.
// (edge/internal is not importable from bench: its queue and spool are not
// part of this number.)
func ingestCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	dsn := fs.String("clickhouse", "", "ClickHouse DSN (a bench database: rows are added to clicks)")
	n := fs.Int64("clicks", 3_000_000, "clicks to insert")
	batch := fs.Int("batch", 50_000, "rows per INSERT (the edge pipeline's default batch)")
	chunk := fs.Int("chunk", chstore.DefaultChunking().Rows, "rows per data block of an INSERT (the edge pipeline's default)")
	workers := fs.Int("workers", 2, "enrich+insert goroutines (the edge pipeline's default)")
	serverPID := fs.Int("server-pid", 0, "ClickHouse server pid: report its CPU time")
	table := fs.String("table", "clicks", "insert into this table instead (e.g. one made with CREATE TABLE t AS clicks: the raw insert without the materialized views)")
	compareRaw := fs.Bool("compare-raw", false, "also insert the same rows into a view-less copy of clicks (bench_ingest_raw, dropped afterwards)")
	jsonOut := fs.String("json", "", "write the result as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dsn == "" || *n <= 0 || *batch <= 0 || *workers <= 0 {
		return errors.New("--clickhouse, positive --clicks, --batch and --workers are required")
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
	rep := &ingestReport{Clicks: *n, Batch: *batch, Chunk: *chunk, Workers: *workers, OwnerID: owner}
	chunking := chstore.DefaultChunking()
	chunking.Rows = *chunk
	// The raw insert goes first: the views' background merges after the
	// main run would slow it down.
	if *compareRaw {
		if rep.RawRowsPerSec, rep.RawServerCPUSecond, err = ingestRaw(ctx, ch, enr, tables, *n, *batch, chunking, *workers, owner, *serverPID); err != nil {
			return err
		}
	}
	var srv *procSampler
	if *serverPID > 0 {
		if srv, err = startSampler(*serverPID); err != nil {
			return err
		}
	}
	self, err := startSampler(os.Getpid())
	if err != nil {
		return err
	}
	start := time.Now()
	if !validIdent(*table) {
		return fmt.Errorf("--table %q: not a plain table name", *table)
	}
	phases, err := runIngest(ctx, ch, enr, hitTemplates(tables, 1024), *table, *n, *batch, chunking, *workers, owner)
	el := time.Since(start)
	cu, _ := self.stop()
	if srv != nil {
		su, serr := srv.stop()
		if serr == nil {
			rep.ServerCPUSeconds = su.CPUSeconds
		}
	}
	if err != nil {
		return err
	}
	rep.Seconds, rep.RowsPerSec, rep.ClientCPUSeconds = el.Seconds(), float64(*n)/el.Seconds(), cu.CPUSeconds
	rate := func(d time.Duration) float64 { return float64(*n) / max(d.Seconds(), 1e-9) }
	rep.EnrichRowsPerSec, rep.InsertRowsPerSec = rate(phases.Enrich), rate(phases.Insert)
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
	fmt.Fprintf(w, "  phases (sum over workers)  enrich %.2f s = %s rows/s | insert %.2f s = %s rows/s\n",
		p.Enrich.Seconds(), human(r.EnrichRowsPerSec), p.Insert.Seconds(), human(r.InsertRowsPerSec))
	fmt.Fprintf(w, "  cpu          bench %.2f CPU-s", r.ClientCPUSeconds)
	if r.ServerCPUSeconds > 0 {
		fmt.Fprintf(w, ", ClickHouse %.2f CPU-s (%s rows per server-CPU-second)", r.ServerCPUSeconds, human(float64(r.Clicks)/r.ServerCPUSeconds))
	}
	fmt.Fprintf(w, "; load average %s\n", r.LoadAvg)
	if r.RawRowsPerSec > 0 {
		fmt.Fprintf(w, "  without the materialized views (same rows, view-less copy of clicks): %s rows/s, ClickHouse %.2f CPU-s\n", human(r.RawRowsPerSec), r.RawServerCPUSecond)
	}
}

// ingestRaw inserts the same clicks into bench_ingest_raw, a copy of the
// clicks table without materialized views, and drops it: rows/s and
// server CPU-s of the raw insert alone.
func ingestRaw(ctx context.Context, ch driver.Conn, enr *click.Enricher, tables *headerTables, n int64, batch int, c chstore.Chunking, workers int, owner int64, serverPID int) (float64, float64, error) {
	const table = "bench_ingest_raw"
	if err := ch.Exec(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
		return 0, 0, fmt.Errorf("drop %s: %w", table, err)
	}
	if err := ch.Exec(ctx, "CREATE TABLE "+table+" AS clicks"); err != nil {
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
	start := time.Now()
	_, err := runIngest(ctx, ch, enr, hitTemplates(tables, 1024), table, n, batch, c, workers, owner)
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
	return float64(n) / el.Seconds(), cpu, nil
}

// runIngest inserts n clicks with workers goroutines and returns their
// summed phase times.
func runIngest(ctx context.Context, ch driver.Conn, enr *click.Enricher, hits []click.Hit, table string, n int64, batch int, c chstore.Chunking, workers int, owner int64) (ingestPhases, error) {
	var (
		mu    sync.Mutex
		total ingestPhases
	)
	g, gctx := errgroup.WithContext(ctx)
	for wi := range workers {
		from, to := n*int64(wi)/int64(workers), n*int64(wi+1)/int64(workers)
		g.Go(func() error {
			p, err := ingestWorker(gctx, ch, enr, hits, table, from, to, batch, c, owner)
			mu.Lock()
			total.add(p)
			mu.Unlock()
			return err
		})
	}
	return total, g.Wait()
}

// ingestWorker is one pipeline worker over clicks [from, to).
func ingestWorker(ctx context.Context, ch driver.Conn, enr *click.Enricher, hits []click.Hit, table string, from, to int64, batch int, c chstore.Chunking, owner int64) (ingestPhases, error) {
	var p ingestPhases
	rows := make([]click.Row, 0, batch)
	var blk click.Block
	for i := from; i < to; {
		t0 := time.Now()
		rows = rows[:0]
		for ; i < to && len(rows) < batch; i++ {
			h := hits[i%int64(len(hits))]
			h.UnixNano = t0.UnixNano() + int64(len(rows)) // the edge stamps hits at capture, not here
			h.LinkID, h.OwnerID = 1+i%1000, owner
			h.IP[15] = byte(i)
			rows = append(rows, enr.Enrich(&h))
		}
		t1 := time.Now()
		err := chstore.InsertRowsInto(ctx, ch, table, &blk, rows, c)
		p.Enrich += t1.Sub(t0)
		p.Insert += time.Since(t1)
		if err != nil {
			return p, err
		}
	}
	return p, nil
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

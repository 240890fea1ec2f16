package stats

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/pgstore"
)

// Roll-up of human click counts into PostgreSQL (links.clicks,
// qr_codes.scans). Each step finds the targets that received human clicks
// since the last step — rows of click_touches (ClickHouse migration 0006:
// one row per target and INSERT into clicks, ordered by the server's
// insert time) at or after the watermark — reads their absolute totals
// from click_totals and writes them. The watermark is the server clock at
// the start of the last successful step minus an overlap that covers
// inserts still committing when that step read, so no target is missed;
// re-reading a target is harmless (absolute values). A step costs what the
// last seconds' touches cost, however many clicks the month holds.
//
// Clicks replayed from an edge's spool are touches at replay time. A full
// reconcile over every target in click_totals, run at start and every
// ReconcileEvery, covers anything a step could not see (the roll-up was
// down longer than touches are kept), and drops touch partitions older
// than yesterday.

// RollupOptions tunes RunRollup; zero values take the defaults.
type RollupOptions struct {
	Every          time.Duration // step interval; default 1 s
	Overlap        time.Duration // watermark overlap; default 10 s
	ReconcileEvery time.Duration // full reconcile interval; default 10 min
	Log            *slog.Logger
}

func (o *RollupOptions) defaults() {
	if o.Every <= 0 {
		o.Every = time.Second
	}
	if o.Overlap <= 0 {
		o.Overlap = 10 * time.Second
	}
	if o.ReconcileEvery <= 0 {
		o.ReconcileEvery = 10 * time.Minute
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
}

// Roller rolls counters up from ClickHouse into PostgreSQL. RunRollup drives
// it; tests call Step and Reconcile directly.
type Roller struct {
	conn driver.Conn
	st   *pgstore.Store
	o    RollupOptions
	// since is the ClickHouse time (unix seconds) from which the next step
	// looks for inserts; 0 before the first successful step.
	since int64
}

// NewRoller returns a roller; call Reconcile once before the first Step.
func NewRoller(conn driver.Conn, st *pgstore.Store, o RollupOptions) *Roller {
	o.defaults()
	return &Roller{conn: conn, st: st, o: o}
}

// RunRollup reconciles every counter, then rolls up new clicks every
// o.Every until ctx ends. Failures are logged and retried on the next tick;
// it returns only when ctx is done.
func RunRollup(ctx context.Context, conn driver.Conn, st *pgstore.Store, o RollupOptions) {
	r := NewRoller(conn, st, o)
	t := time.NewTicker(r.o.Every)
	defer t.Stop()
	var lastReconcile time.Time
	failing := false
	for {
		var err error
		if time.Since(lastReconcile) >= r.o.ReconcileEvery {
			start := time.Now()
			var n int64
			if n, err = r.Reconcile(ctx); err == nil {
				lastReconcile = start
				r.o.Log.Info("click counters reconciled", "changed", n, "took", time.Since(start).Round(time.Millisecond))
			}
		} else {
			start := time.Now()
			var n int64
			if n, err = r.Step(ctx); err == nil && n > 0 {
				r.o.Log.Debug("click counters rolled up", "changed", n, "took", time.Since(start).Round(time.Millisecond))
			}
		}
		if ctx.Err() != nil {
			return
		}
		if (err != nil) != failing { // log transitions, not every failing tick
			failing = err != nil
			if failing {
				r.o.Log.Warn("click counter roll-up failing", "err", err)
			} else {
				r.o.Log.Info("click counter roll-up recovered")
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// stepSQL reads the totals of targets touched since a moment. The IN
// subquery reads click_touches by its key prefix, and keeps the
// click_totals read to those targets' key ranges.
const stepSQL = `SELECT toString(kind), target_id, countIfMerge(humans)
FROM click_totals
WHERE (kind, target_id) IN (
	SELECT kind, target_id FROM click_touches WHERE inserted_at >= toDateTime(?, 'UTC'))
GROUP BY kind, target_id`

// oldTouchesSQL lists the click_touches partitions (days, YYYYMMDD) older
// than yesterday; dropTouchesSQL drops one.
const (
	oldTouchesSQL = `SELECT DISTINCT toUInt32(partition) FROM system.parts
WHERE database = currentDatabase() AND table = 'click_touches' AND active
	AND toUInt32(partition) < toYYYYMMDD(now() - 86400)`
	dropTouchesSQL = `ALTER TABLE click_touches DROP PARTITION ?`
)

const reconcileSQL = `SELECT toString(kind), target_id, countIfMerge(humans)
FROM click_totals GROUP BY kind, target_id`

// Step rolls up the targets that received clicks since the last step (or
// since the last Reconcile) and returns how many counters changed.
func (r *Roller) Step(ctx context.Context) (int64, error) {
	now, err := r.serverNow(ctx)
	if err != nil {
		return 0, err
	}
	since := r.since
	if since == 0 { // no reconcile yet: cover the overlap only
		since = now - int64(r.o.Overlap/time.Second)
	}
	n, err := r.apply(ctx, false, stepSQL, min(since, now))
	if err != nil {
		return n, err
	}
	r.since = now - int64(r.o.Overlap/time.Second)
	return n, nil
}

// Reconcile writes the totals of every target in click_totals, correcting
// any difference, drops the touches steps no longer need, and returns how
// many counters changed.
func (r *Roller) Reconcile(ctx context.Context) (int64, error) {
	now, err := r.serverNow(ctx)
	if err != nil {
		return 0, err
	}
	n, err := r.apply(ctx, true, reconcileSQL)
	if err != nil {
		return n, err
	}
	r.since = now - int64(r.o.Overlap/time.Second)
	// Not a failed reconcile: the counters are right, and a failing drop
	// must not turn every later tick into a full reconcile.
	if err := r.dropOldTouches(ctx); err != nil {
		r.o.Log.Warn("click touches not trimmed", "err", err)
	}
	return n, nil
}

// dropOldTouches drops the click_touches partitions older than yesterday.
// Only a reconcile calls it: it has just read every target's totals, so the
// steps after it need touches from its start on.
func (r *Roller) dropOldTouches(ctx context.Context) error {
	rows, err := r.conn.Query(ctx, oldTouchesSQL)
	if err != nil {
		return fmt.Errorf("list old click touches: %w", err)
	}
	var days []uint32
	for rows.Next() {
		var d uint32
		if err := rows.Scan(&d); err != nil {
			rows.Close()
			return fmt.Errorf("list old click touches: %w", err)
		}
		days = append(days, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list old click touches: %w", err)
	}
	for _, d := range days {
		if err := r.conn.Exec(ctx, dropTouchesSQL, d); err != nil {
			return fmt.Errorf("drop click touches of %d: %w", d, err)
		}
	}
	return nil
}

func (r *Roller) serverNow(ctx context.Context) (int64, error) {
	var now uint32
	if err := r.conn.QueryRow(ctx, "SELECT toUInt32(now())").Scan(&now); err != nil {
		return 0, fmt.Errorf("read clickhouse clock: %w", err)
	}
	return int64(now), nil
}

// apply runs a (kind, target_id, humans) query and writes its rows to
// PostgreSQL in batches.
func (r *Roller) apply(ctx context.Context, exact bool, sql string, args ...any) (int64, error) {
	rows, err := r.conn.Query(ctx, sql, args...)
	if err != nil {
		return 0, fmt.Errorf("read click totals: %w", err)
	}
	defer rows.Close()
	var (
		changed        int64
		links, qrs     counters
		kind           string
		target, humans uint64
	)
	flush := func(force bool) error {
		for _, c := range []*counters{&links, &qrs} {
			if len(c.ids) == 0 || (!force && len(c.ids) < pgstore.CounterBatch) {
				continue
			}
			n, err := c.write(ctx, exact)
			changed += n
			if err != nil {
				return err
			}
		}
		return nil
	}
	links.set, qrs.set = r.st.SetLinkClicks, r.st.SetQRScans
	for rows.Next() {
		if err := rows.Scan(&kind, &target, &humans); err != nil {
			return changed, fmt.Errorf("scan click totals: %w", err)
		}
		c := &links
		if kind == "qr" {
			c = &qrs
		}
		c.add(int64(target), int64(humans))
		if err := flush(false); err != nil {
			return changed, err
		}
	}
	if err := rows.Err(); err != nil {
		return changed, fmt.Errorf("read click totals: %w", err)
	}
	return changed, flush(true)
}

// counters collects one table's updates. Ids are written in ascending
// order so that concurrent admin processes lock rows in the same order.
type counters struct {
	ids, counts []int64
	set         func(ctx context.Context, ids, counts []int64, exact bool) (int64, error)
}

func (c *counters) add(id, n int64) {
	c.ids = append(c.ids, id)
	c.counts = append(c.counts, n)
}

func (c *counters) write(ctx context.Context, exact bool) (int64, error) {
	idx := make([]int, len(c.ids))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(c.ids[a], c.ids[b]) })
	ids, counts := make([]int64, len(idx)), make([]int64, len(idx))
	for i, j := range idx {
		ids[i], counts[i] = c.ids[j], c.counts[j]
	}
	c.ids, c.counts = c.ids[:0], c.counts[:0]
	return c.set(ctx, ids, counts, exact)
}

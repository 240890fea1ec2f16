package chstore

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
)

// A migration file that replaces the materialized views feeding counters
// cannot let an insert through while it does: dropping the old view first
// misses the inserts before the new one exists, creating the new one first
// counts them twice. Such a file starts with a hold line,
//
//	-- kurz:hold click_events clicks
//
// and the runner then makes every insert into those raw tables fail while
// the file runs: it adds a column whose default throws (holdColumn), so an
// INSERT, which names its columns and leaves that one to its default,
// fails before anything is written; edges spool the refused batches and
// replay them afterwards (edge/internal/clicks), so nothing is lost or
// counted twice while their spools have room. Reads that name their
// columns go on. The hold is released only after every statement and the
// version row succeeded: a file that fails half-way leaves the views
// half-replaced, and inserts must stay refused until a run of it succeeds
// (its statements can run again as long as it is not recorded).
// ClickHouse 18.16 was tried: the ALTER is accepted (a constant
// throwIf(1) default would be evaluated by the ALTER and refused, so the
// default reads a column), inserts fail with nothing written, and DROP
// COLUMN lets them through again. Merges of the held table fail meanwhile
// too (a merge fills the new column from its default), which costs
// nothing while no insert makes new parts.
//
// Each file holds with a column of its own (kurz_hold_0014): an admin of
// an earlier version, which releases the holds of the files it knows,
// must not release the hold of a later file that failed half-way.
func holdColumn(version uint32) string { return fmt.Sprintf("kurz_hold_%04d", version) }

// holdRE is a file's hold line: its first line, naming raw tables (each
// must have a kind column: the default reads it).
var holdRE = regexp.MustCompile(`\A-- kurz:hold((?: \w+)+)\n`)

// heldTables returns the tables a migration file's body holds, if any.
func heldTables(body string) []string {
	m := holdRE.FindStringSubmatch(body)
	if m == nil {
		return nil
	}
	return strings.Fields(m[1])
}

// holdTable is the table a hold alters and whose columns show it: on a
// cluster the shards' local tables, which the Distributed table forwards
// its inserts to. kurz connects to a cluster with insert_distributed_sync=1
// (cluster.go), so an edge's insert fails at once on a held shard and the
// edge replays it, checking first which rows arrived. With asynchronous
// Distributed inserts (an operator's override) a queued block would be
// sent again after the release, possibly after the edge's replay had
// inserted the same rows: do not migrate a held file with that override.
//
// On a cluster of plain tables the state is read on the server the runner
// is connected to, and an ON CLUSTER ALTER reports the first failing
// server's error only; docs/operations.md tells how to check every server
// after a failed run. Replicated tables are held shard by shard
// (shards.go).
func (r *runner) holdTable(table string) string {
	if r.c.Name == "" {
		return table
	}
	return table + LocalSuffix
}

// hold makes inserts into table fail for file version v, unless a run that
// died left them so.
func (r *runner) hold(ctx context.Context, table string, v uint32) error {
	col := holdColumn(v)
	clause := fmt.Sprintf("ADD COLUMN %s UInt8 DEFAULT throwIf(kind = kind)", quote(col))
	if err := r.changeColumn(ctx, r.holdTable(table), col, true, clause); err != nil {
		return fmt.Errorf("hold inserts into %s: %w", table, err)
	}
	return nil
}

// release lets inserts into table through again, as far as file version v
// held them.
func (r *runner) release(ctx context.Context, table string, v uint32) error {
	return r.releaseColumn(ctx, table, holdColumn(v))
}

func (r *runner) releaseColumn(ctx context.Context, table, col string) error {
	if err := r.changeColumn(ctx, r.holdTable(table), col, false, "DROP COLUMN "+quote(col)); err != nil {
		return fmt.Errorf("release inserts into %s: %w", table, err)
	}
	return nil
}

// legacyHoldColumn is the hold column of the first release with holds,
// which named it for no file (0013 only).
const legacyHoldColumn = "kurz_hold"

// releaseLeftovers releases every hold of files once all of them are
// applied: a run that died between a held file's version row and its
// release left inserts refused, and a run of the first release with holds
// that failed half-way left legacyHoldColumn. Only now: a later held file
// that failed half-way has returned before this, still held. Holds this
// run released already are skipped (changeColumn finds them gone).
func (r *runner) releaseLeftovers(ctx context.Context, fsys fs.FS, files []migrationFile) error {
	for _, f := range files {
		held, err := fileHolds(fsys, f)
		if err != nil {
			return err
		}
		for _, t := range held {
			if err := r.release(ctx, t, f.version); err != nil {
				return fmt.Errorf("migration %s: %w", f.name, err)
			}
			if err := r.releaseColumn(ctx, t, legacyHoldColumn); err != nil {
				return fmt.Errorf("migration %s: %w", f.name, err)
			}
		}
	}
	return nil
}

// fileHolds returns the tables file f holds (heldTables of its body).
func fileHolds(fsys fs.FS, f migrationFile) ([]string, error) {
	body, err := fs.ReadFile(fsys, f.name)
	if err != nil {
		return nil, fmt.Errorf("read migration %s: %w", f.name, err)
	}
	return heldTables(string(body)), nil
}

package chstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// runner executes migration statements for one layout: as written on a
// single server, rewritten (clusterStatements) on a cluster.
type runner struct {
	conn driver.Conn
	c    Cluster
	db   string // conn's database; set on a cluster only
	// dial reaches another server of a replicated cluster (shards.go);
	// shards caches the servers found, closed by close.
	dial   func(ctx context.Context, addr string) (driver.Conn, error)
	shards []shardServer
}

// close closes the connections the runner dialed.
func (r *runner) close() { closeShards(r.shards) }

func newRunner(ctx context.Context, conn driver.Conn, c Cluster) (*runner, error) {
	r := &runner{conn: conn, c: c}
	if c.Name == "" {
		return r, nil
	}
	if err := conn.QueryRow(ctx, "SELECT currentDatabase()").Scan(&r.db); err != nil {
		return nil, fmt.Errorf("read current database: %w", err)
	}
	if !ValidIdentifier(r.db) {
		return nil, fmt.Errorf("database %q: a cluster's database name must be letters, digits and _", r.db)
	}
	return r, nil
}

// ctx adds the settings every migration statement runs with. On a
// cluster a backfill's INSERT … SELECT and the version row go through
// Distributed tables: synchronous inserts, so that they are on the shards
// (and counted by the next guard or version read) when Exec returns.
func (r *runner) ctx(ctx context.Context) context.Context {
	if r.c.Name == "" {
		return ctx
	}
	return clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"insert_distributed_sync": 1}))
}

// prepare creates the database on every server of a cluster and the
// schema_migrations table.
func (r *runner) prepare(ctx context.Context) error {
	if err := r.checkLayout(ctx); err != nil {
		return err
	}
	if r.c.Name != "" {
		stmt := fmt.Sprintf("CREATE DATABASE IF NOT EXISTS %s ON CLUSTER %s", quote(r.db), quote(r.c.Name))
		if err := r.conn.Exec(r.ctx(ctx), stmt); err != nil && !alreadyExists(err) {
			return fmt.Errorf("create database %s on cluster %s: %w", r.db, r.c.Name, err)
		}
	}
	if err := r.exec(ctx, createMigrationsTable); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	return nil
}

// checkLayout refuses to migrate a database laid out for the other mode:
// run for one server, a cluster's database would get new tables on one
// server only; run for a cluster, a single server's database would get
// Distributed tables beside its plain ones. The layout shows in
// schema_migrations, the first table a migration creates.
func (r *runner) checkLayout(ctx context.Context) error {
	rows, err := r.conn.Query(ctx,
		"SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'schema_migrations'")
	if err != nil {
		return fmt.Errorf("read schema_migrations engine: %w", err)
	}
	defer rows.Close()
	var engine string
	for rows.Next() {
		if err := rows.Scan(&engine); err != nil {
			return fmt.Errorf("read schema_migrations engine: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read schema_migrations engine: %w", err)
	}
	switch {
	case engine == "Distributed" && r.c.Name == "":
		return fmt.Errorf("the database is laid out for a ClickHouse cluster: set KURZ_CLICKHOUSE_CLUSTER")
	case engine != "" && engine != "Distributed" && r.c.Name != "":
		return fmt.Errorf("the database was migrated for one server; a cluster needs a new database (docs/operations.md, \"ClickHouse cluster\")")
	}
	return nil
}

// exec runs one statement of a migration, rewritten for the layout.
func (r *runner) exec(ctx context.Context, stmt string) error {
	if m := dropColumnRE.FindStringSubmatch(stmt); m != nil {
		return r.dropColumn(ctx, m[1], m[2])
	}
	stmts := []string{stmt}
	if r.c.Name != "" {
		var err error
		if stmts, err = clusterStatements(stmt, r.db, r.c); err != nil {
			return err
		}
	}
	for _, s := range stmts {
		if err := r.conn.Exec(r.ctx(ctx), s); err != nil && !alreadyExists(err) {
			return err
		}
	}
	return nil
}

func (r *runner) apply(ctx context.Context, fsys fs.FS, f migrationFile) error {
	body, err := fs.ReadFile(fsys, f.name)
	if err != nil {
		return fmt.Errorf("read migration %s: %w", f.name, err)
	}
	held := heldTables(string(body))
	// While held, a failure leaves the hold in place (hold.go explains why).
	stillHeld := func(err error) error {
		if len(held) == 0 {
			return err
		}
		return fmt.Errorf("%w (inserts into %s may stay refused, and edges spool them, until `admin migrate` runs this file through)",
			err, strings.Join(held, ", "))
	}
	for _, t := range held {
		if err := r.hold(ctx, t, f.version); err != nil {
			return stillHeld(fmt.Errorf("migration %s: %w", f.name, err))
		}
	}
	for i, stmt := range SplitStatements(string(body)) {
		if err := r.exec(ctx, stmt); err != nil {
			return stillHeld(fmt.Errorf("migration %s statement %d: %w", f.name, i+1, err))
		}
	}
	// INSERT … SELECT, never inline VALUES: the latter hangs on 18.16.
	if err := r.conn.Exec(r.ctx(ctx), "INSERT INTO schema_migrations (version) SELECT ?", f.version); err != nil {
		return stillHeld(fmt.Errorf("record migration %s: %w", f.name, err))
	}
	for _, t := range held {
		if err := r.release(ctx, t, f.version); err != nil {
			return stillHeld(fmt.Errorf("migration %s: %w", f.name, err))
		}
	}
	return nil
}

// dropColumn drops column col of table where it still is (changeColumn).
func (r *runner) dropColumn(ctx context.Context, table, col string) error {
	t, err := alteredTable(table, r.c)
	if err != nil {
		return err
	}
	// A table that is not there is a mistake in the file, not a column
	// dropped before.
	var tables uint64
	if err := r.conn.QueryRow(ctx, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = ?", t).
		Scan(&tables); err != nil {
		return fmt.Errorf("read tables: %w", err)
	}
	if tables == 0 {
		return fmt.Errorf("drop column %s: no table %s", col, t)
	}
	if err := r.changeColumn(ctx, t, col, false, "DROP COLUMN "+quote(col)); err != nil {
		return fmt.Errorf("drop column %s of %s: %w", col, t, err)
	}
	return nil
}

// ClickHouse error codes of a column ALTER that a concurrent migrator got
// to first: adding a column that is there (18.16 says ILLEGAL_COLUMN,
// later releases DUPLICATE_COLUMN), dropping one that is gone (18.16
// ILLEGAL_COLUMN, later releases NOT_FOUND_COLUMN_IN_BLOCK).
const (
	codeNotFoundColumn  = 10
	codeDuplicateColumn = 15
	codeIllegalColumn   = 44
)

func columnGone(err error) bool {
	var ex *clickhouse.Exception
	return errors.As(err, &ex) && (ex.Code == codeNotFoundColumn || ex.Code == codeIllegalColumn) &&
		strings.Contains(ex.Message, "Cannot find column")
}

func columnThere(err error) bool {
	var ex *clickhouse.Exception
	return errors.As(err, &ex) && (ex.Code == codeDuplicateColumn || ex.Code == codeIllegalColumn) &&
		strings.Contains(ex.Message, "already exists")
}

// hasColumn reports whether conn's server has column col in table of its
// current database.
func hasColumn(ctx context.Context, conn driver.Conn, table, col string) (bool, error) {
	var n uint64
	err := conn.QueryRow(ctx,
		"SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = ? AND name = ?",
		table, col).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("read columns of %s: %w", table, err)
	}
	return n > 0, nil
}

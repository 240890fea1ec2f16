package chstore

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// runner executes migration statements for one layout: as written on a
// single server, rewritten (clusterStatements) on a cluster.
type runner struct {
	conn driver.Conn
	c    Cluster
	db   string // conn's database; set on a cluster only
}

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
	for i, stmt := range SplitStatements(string(body)) {
		if err := r.exec(ctx, stmt); err != nil {
			return fmt.Errorf("migration %s statement %d: %w", f.name, i+1, err)
		}
	}
	// INSERT … SELECT, never inline VALUES: the latter hangs on 18.16.
	if err := r.conn.Exec(r.ctx(ctx), "INSERT INTO schema_migrations (version) SELECT ?", f.version); err != nil {
		return fmt.Errorf("record migration %s: %w", f.name, err)
	}
	return nil
}

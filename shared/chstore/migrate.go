package chstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/migrations"
)

// ClickHouse error codes a racing migrator may see although its statement
// says IF NOT EXISTS: two CREATEs of the same table can both pass the check.
const (
	codeTableAlreadyExists    = 57
	codeDatabaseAlreadyExists = 82
)

const createMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version UInt32,
    applied_at DateTime DEFAULT now()
) ENGINE = MergeTree ORDER BY version`

// Migrate applies the migrations in fsys (files NNNN_name.sql at its root,
// e.g. fs.Sub(migrations.ClickHouse, "clickhouse")) that the database does
// not list in schema_migrations, in numeric order, one statement at a time.
//
// ClickHouse has no transactions, so every statement must be idempotent
// (IF NOT EXISTS). That makes concurrent runs safe for the schema: two
// processes may both apply a migration; the second one's statements are
// no-ops and its second schema_migrations row is harmless, because
// versions are read as a set. A backfill guarded by "the table is empty"
// (0007, 0010) is not safe that way, and neither is a file that drops
// views an earlier file created (0013, hold.go): a run still inside 0011
// while another finishes 0013 would create 0011's views again after 0013
// dropped them (versions are not contiguous, 0050 comes before 0013 in
// an upgraded database, so a later version recorded says nothing about
// an earlier file), and the first run to finish a held file releases the
// hold while the other may still be between two views. `admin migrate`
// holds a PostgreSQL advisory lock around Migrate
// (pgstore.WithClickHouseMigrationLock), and other callers must not run
// it concurrently. A run that dies half-way re-applies the whole file
// next time.
func Migrate(ctx context.Context, conn driver.Conn, fsys fs.FS) error {
	return MigrateCluster(ctx, conn, fsys, Cluster{})
}

// MigrateCluster is Migrate for the layout c. On a cluster it first
// creates conn's database on every server of c (the one conn uses must
// exist), and rewrites each statement for the cluster
// (clusterStatements); schema_migrations is then a Distributed table
// too, so every server reads the same versions. conn must be a server of
// the cluster; replicated tables on more than its own shard need
// MigrateClusterWith and a DialServer (shards.go).
func MigrateCluster(ctx context.Context, conn driver.Conn, fsys fs.FS, c Cluster) error {
	return MigrateClusterWith(ctx, conn, fsys, c, MigrateOptions{})
}

// MigrateClusterWith is MigrateCluster with an operator's options.
func MigrateClusterWith(ctx context.Context, conn driver.Conn, fsys fs.FS, c Cluster, o MigrateOptions) error {
	if err := c.Check(); err != nil {
		return err
	}
	files, err := migrationFiles(fsys)
	if err != nil {
		return err
	}
	r, err := newRunner(ctx, conn, c)
	if err != nil {
		return err
	}
	r.dial = o.DialServer
	defer r.close()
	if err := r.prepare(ctx); err != nil {
		return err
	}
	// Before any file, so that a server on which 0011's chained views would
	// count a click twice or never stops the run before they exist; and on
	// every run, so that `admin migrate` after a ClickHouse upgrade checks
	// the new release (docs/architecture.md, the upgrade notes).
	if _, err := checkViewChaining(ctx, conn); err != nil {
		return err
	}
	for _, f := range files {
		// Re-read before each file so that a concurrent migrator's progress
		// is not repeated needlessly.
		applied, err := appliedVersions(ctx, conn)
		if err != nil {
			return err
		}
		if applied[f.version] {
			continue
		}
		if f.version == uniquesFromRaw {
			if err := checkRawComplete(ctx, conn, o); err != nil {
				return err
			}
		}
		if err := r.apply(ctx, fsys, f); err != nil {
			return err
		}
	}
	return r.releaseLeftovers(ctx, fsys, files)
}

type migrationFile struct {
	version uint32
	name    string
}

func migrationFiles(fsys fs.FS) ([]migrationFile, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	var files []migrationFile
	seen := map[uint32]string{}
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".sql" {
			continue
		}
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.ParseUint(num, 10, 32)
		if !ok || err != nil || v == 0 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_description.sql", e.Name())
		}
		if prev, dup := seen[uint32(v)]; dup {
			return nil, fmt.Errorf("migrations %s and %s share version %d", prev, e.Name(), v)
		}
		seen[uint32(v)] = e.Name()
		files = append(files, migrationFile{version: uint32(v), name: e.Name()})
	}
	slices.SortFunc(files, func(a, b migrationFile) int { return int(a.version) - int(b.version) })
	return files, nil
}

func appliedVersions(ctx context.Context, conn driver.Conn) (map[uint32]bool, error) {
	rows, err := conn.Query(ctx, "SELECT DISTINCT version FROM schema_migrations")
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	defer rows.Close()
	applied := map[uint32]bool{}
	for rows.Next() {
		var v uint32
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("scan schema_migrations: %w", err)
		}
		applied[v] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	return applied, nil
}

func alreadyExists(err error) bool {
	var ex *clickhouse.Exception
	return errors.As(err, &ex) && (ex.Code == codeTableAlreadyExists || ex.Code == codeDatabaseAlreadyExists)
}

// MigrateEmbedded applies kurz's own ClickHouse migrations
// (migrations.ClickHouse).
func MigrateEmbedded(ctx context.Context, conn driver.Conn) error {
	return MigrateEmbeddedCluster(ctx, conn, Cluster{})
}

// MigrateEmbeddedCluster is MigrateEmbedded for the layout c.
func MigrateEmbeddedCluster(ctx context.Context, conn driver.Conn, c Cluster) error {
	sub, err := fs.Sub(migrations.ClickHouse, "clickhouse")
	if err != nil {
		return fmt.Errorf("open embedded migrations: %w", err)
	}
	return MigrateCluster(ctx, conn, sub, c)
}

package pgstore

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"strconv"
	"strings"
)

// migrateLockKey is the advisory lock that serialises concurrent migrators.
const migrateLockKey = 0x6b75727a // "kurz"

// clickHouseMigrateLockKey serialises the ClickHouse migrations that
// `admin migrate` runs (WithClickHouseMigrationLock).
const clickHouseMigrateLockKey = migrateLockKey + 1

// Migration is one numbered SQL file.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// LoadMigrations reads NNNN_name.sql files from fsys's root, sorted by version.
func LoadMigrations(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %q: name must be NNNN_description.sql", name)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %q and %q share version %d", prev, name, v)
		}
		seen[v] = name
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read migration %q: %w", name, err)
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Migrate applies every migration of fsys not yet applied, each in its own
// transaction, holding an advisory lock so two processes can run it at once.
// It returns the names applied.
func (s *Store) Migrate(ctx context.Context, fsys fs.FS, log *slog.Logger) ([]string, error) {
	migs, err := LoadMigrations(fsys)
	if err != nil {
		return nil, err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: acquire connection: %w", mapErr(err))
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(migrateLockKey)); err != nil {
		return nil, fmt.Errorf("migrate: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(migrateLockKey)) //nolint:errcheck // released with the session anyway
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	applied := map[int]bool{}
	rows, err := conn.Query(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return nil, fmt.Errorf("migrate: read applied: %w", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return nil, fmt.Errorf("migrate: scan applied: %w", err)
		}
		applied[v] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("migrate: read applied: %w", err)
	}
	var done []string
	for _, m := range migs {
		if applied[m.Version] {
			continue
		}
		tx, err := conn.Begin(ctx)
		if err != nil {
			return done, fmt.Errorf("migrate %s: begin: %w", m.Name, err)
		}
		// Simple protocol (no parameters) lets one Exec run a whole file.
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			tx.Rollback(ctx) //nolint:errcheck
			return done, fmt.Errorf("migrate %s: %w", m.Name, err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.Version, m.Name); err != nil {
			tx.Rollback(ctx) //nolint:errcheck
			return done, fmt.Errorf("migrate %s: record: %w", m.Name, err)
		}
		if err := tx.Commit(ctx); err != nil {
			return done, fmt.Errorf("migrate %s: commit: %w", m.Name, err)
		}
		if log != nil {
			log.Info("applied migration", "store", "postgres", "name", m.Name)
		}
		done = append(done, m.Name)
	}
	return done, nil
}

// WithClickHouseMigrationLock runs fn holding an advisory lock of this
// database, so that concurrent `admin migrate` runs apply ClickHouse's
// migrations one after the other. ClickHouse has no lock of its own, and
// a backfill guarded by "the table is empty" (0007, 0010) could otherwise
// be run by two migrators at once and count every click twice.
func (s *Store) WithClickHouseMigrationLock(ctx context.Context, fn func() error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("clickhouse migration lock: acquire connection: %w", mapErr(err))
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(clickHouseMigrateLockKey)); err != nil {
		return fmt.Errorf("clickhouse migration lock: %w", mapErr(err))
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(clickHouseMigrateLockKey)) //nolint:errcheck // released with the session anyway
	return fn()
}

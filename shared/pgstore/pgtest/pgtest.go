// Package pgtest gives each test its own, fully migrated PostgreSQL
// database on the server named by KURZ_TEST_DATABASE_URL. Databases are
// cloned from a template migrated once per schema version, so a fresh
// database costs one CREATE DATABASE. A missing server fails the test.
package pgtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"kurz/migrations"
	"kurz/shared/pgstore"
	"kurz/shared/secret"
)

// EnvURL names the variable holding the test server's admin DSN.
const EnvURL = "KURZ_TEST_DATABASE_URL"

// New creates a fresh migrated database for t, dropped when t ends, and
// returns a pool on it plus its DSN (for processes the test starts).
func New(t testing.TB) (*pgxpool.Pool, string) {
	t.Helper()
	admin := os.Getenv(EnvURL)
	if admin == "" {
		t.Fatalf("%s is not set: run the tests with `make test`, which starts PostgreSQL", EnvURL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tmpl, err := ensureTemplate(ctx, admin)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	name := "t_" + strings.ToLower(secret.RandomString(12))
	if err := createFrom(ctx, admin, name, tmpl); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	dsn := withDB(t, admin, name)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatalf("pgtest: connect %s: %v", name, err)
	}
	t.Cleanup(pool.Close)
	dropAtCleanup(t, admin, name)
	return pool, dsn
}

// Empty creates a fresh database with no schema (for migration tests) and
// returns its DSN; it is dropped when t ends.
func Empty(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(EnvURL)
	if admin == "" {
		t.Fatalf("%s is not set: run the tests with `make test`, which starts PostgreSQL", EnvURL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("pgtest: connect to %s (is the test PostgreSQL running? use `make test`): %v", EnvURL, err)
	}
	defer conn.Close(ctx)
	name := "t_" + strings.ToLower(secret.RandomString(12))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create %s: %v", name, err)
	}
	dropAtCleanup(t, admin, name)
	return withDB(t, admin, name)
}

func dropAtCleanup(t testing.TB, admin, name string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Logf("pgtest: drop %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("pgtest: drop %s: %v", name, err)
		}
	})
}

// Store is New wrapped in a pgstore.Store.
func Store(t testing.TB) (*pgstore.Store, string) {
	t.Helper()
	pool, dsn := New(t)
	st := Wrap(pool)
	t.Cleanup(func() { pools.Delete(st) })
	return st, dsn
}

func withDB(t testing.TB, dsn, db string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("pgtest: %s: %v", EnvURL, err)
	}
	u.Path = "/" + db
	return u.String()
}

// schemaHash names the template after the migrations' content, so a changed
// migration gets a fresh template instead of a stale one.
func schemaHash() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(migrations.Postgres, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.Postgres, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func ensureTemplate(ctx context.Context, admin string) (string, error) {
	sum, err := schemaHash()
	if err != nil {
		return "", fmt.Errorf("hash migrations: %w", err)
	}
	tmpl := "kurz_tmpl_" + sum
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", fmt.Errorf("connect to %s (is the test PostgreSQL running? use `make test`): %w", EnvURL, err)
	}
	defer conn.Close(ctx)
	// Serialise template creation across concurrently running test binaries.
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(7283)"); err != nil {
		return "", fmt.Errorf("lock: %w", err)
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock(7283)") //nolint:errcheck
	var ready bool
	err = conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate)", tmpl).Scan(&ready)
	if err != nil {
		return "", fmt.Errorf("look up template: %w", err)
	}
	if ready {
		return tmpl, nil
	}
	build := tmpl + "_build"
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+build+" WITH (FORCE)"); err != nil {
		return "", fmt.Errorf("drop stale template: %w", err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+build); err != nil {
		return "", fmt.Errorf("create template: %w", err)
	}
	u, _ := url.Parse(admin)
	u.Path = "/" + build
	st, err := pgstore.Open(ctx, u.String())
	if err != nil {
		return "", err
	}
	sub, err := fs.Sub(migrations.Postgres, "postgres")
	if err != nil {
		st.Close()
		return "", err
	}
	_, err = st.Migrate(ctx, sub, nil)
	st.Close()
	if err != nil {
		return "", fmt.Errorf("migrate template: %w", err)
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+build+" RENAME TO "+tmpl); err != nil {
		return "", fmt.Errorf("rename template: %w", err)
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+tmpl+" WITH IS_TEMPLATE true"); err != nil {
		return "", fmt.Errorf("mark template: %w", err)
	}
	return tmpl, nil
}

func createFrom(ctx context.Context, admin, name, tmpl string) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	// CREATE DATABASE … TEMPLATE fails while another session is copying the
	// same template; retry briefly.
	for i := 0; ; i++ {
		_, err = conn.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+tmpl)
		if err == nil || i == 50 || !strings.Contains(err.Error(), "being accessed by other users") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// Notices counts the change notices (channel kurz_changes, which conn must
// LISTEN on) per table until none arrives for a second.
func Notices(ctx context.Context, t testing.TB, conn *pgx.Conn) map[string]int {
	t.Helper()
	got := map[string]int{}
	for {
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		note, err := conn.WaitForNotification(wctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				t.Fatal(ctx.Err())
			}
			return got
		}
		var p struct {
			T string `json:"t"`
		}
		if err := json.Unmarshal([]byte(note.Payload), &p); err != nil {
			t.Fatalf("notice %q: %v", note.Payload, err)
		}
		got[p.T]++
	}
}

// Listen opens a connection to dsn that listens on kurz_changes, closed
// when t ends.
func Listen(ctx context.Context, t testing.TB, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("pgtest: listen: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(ctx, "LISTEN kurz_changes"); err != nil {
		t.Fatalf("pgtest: listen: %v", err)
	}
	return conn
}

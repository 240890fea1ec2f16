package pgstore_test

import (
	"context"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"

	"kurz/migrations"
	"kurz/shared/pgstore"
	"kurz/shared/pgstore/pgtest"
)

func pgMigrations(t *testing.T) fs.FS {
	t.Helper()
	sub, err := fs.Sub(migrations.Postgres, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

func TestLoadMigrationsErrors(t *testing.T) {
	tests := []struct{ dir, want string }{
		{"testdata/badname", "NNNN_description.sql"},
		{"testdata/dup", "share version 1"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			_, err := pgstore.LoadMigrations(os.DirFS(tt.dir))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestMigrateIdempotentAndConcurrent(t *testing.T) {
	dsn := pgtest.Empty(t)
	ctx := context.Background()
	want, err := pgstore.LoadMigrations(pgMigrations(t))
	if err != nil {
		t.Fatal(err)
	}
	// Three migrators at once: the advisory lock serialises them and each
	// migration is applied exactly once.
	var wg sync.WaitGroup
	applied := make([][]string, 3)
	errs := make([]error, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := pgstore.Open(ctx, dsn)
			if err != nil {
				errs[i] = err
				return
			}
			defer st.Close()
			applied[i], errs[i] = st.Migrate(ctx, pgMigrations(t), nil)
		}()
	}
	wg.Wait()
	total := 0
	for i := range 3 {
		if errs[i] != nil {
			t.Fatalf("migrator %d: %v", i, errs[i])
		}
		total += len(applied[i])
	}
	if total != len(want) {
		t.Fatalf("applied %d migrations in all, want %d", total, len(want))
	}
	st, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	again, err := st.Migrate(ctx, pgMigrations(t), nil)
	if err != nil || len(again) != 0 {
		t.Fatalf("second run applied %v, err %v", again, err)
	}
}

// A failing migration leaves nothing of itself behind and stops the run.
func TestMigrateFailureIsAtomic(t *testing.T) {
	dsn := pgtest.Empty(t)
	ctx := context.Background()
	st := pgtest.Open(t, dsn)
	done, err := st.Migrate(ctx, os.DirFS("testdata/broken"), nil)
	if err == nil || !strings.Contains(err.Error(), "0002_bad.sql") {
		t.Fatalf("err = %v", err)
	}
	if len(done) != 1 {
		t.Fatalf("applied %v", done)
	}
	var n int
	if err := pgtest.Pool(st).QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'half'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("half-applied migration left table: n=%d err=%v", n, err)
	}
}

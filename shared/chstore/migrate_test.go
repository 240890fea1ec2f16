package chstore_test

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/migrations"
	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
)

func embedded(t *testing.T) fs.FS {
	t.Helper()
	sub, err := fs.Sub(migrations.ClickHouse, "clickhouse")
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

func versions(t *testing.T, conn driver.Conn) []uint32 {
	t.Helper()
	var got []struct {
		Version uint32 `ch:"version"`
	}
	if err := conn.Select(context.Background(), &got, "SELECT DISTINCT version FROM schema_migrations ORDER BY version"); err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, len(got))
	for i, g := range got {
		out[i] = g.Version
	}
	return out
}

func tables(t *testing.T, conn driver.Conn) []string {
	t.Helper()
	var got []struct {
		Name string `ch:"name"`
	}
	if err := conn.Select(context.Background(), &got, "SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name"); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(got))
	for i, g := range got {
		out[i] = g.Name
	}
	return out
}

// clickTables are the tables of the click schema (0001-0049); other
// migration ranges add their own.
var clickTables = []string{
	"click_dims_total", "click_dims_total_mv",
	"click_hourly", "click_owner_totals", "click_owner_totals_mv",
	"click_totals", "clicks", "ingest_heartbeats", "schema_migrations",
	"click_visitors", "click_hourly_visitors",
	"click_owner_daily", "click_owner_daily_mv",
	// 0011: the raw table of today's edges and the views of its breakdowns.
	"click_events", "click_dims_daily",
	"click_events_owner_daily_mv",
	// 0012: the visitor sketches at three grains, their Null batch table
	// and both chains; the uniq views of 0009 and 0011 are gone.
	"click_uniques", "click_daily_uniques", "click_hourly_uniques", "click_uniques_batch",
	"click_uniques_batch_hourly_mv", "click_uniques_batch_daily_mv", "click_uniques_batch_total_mv",
	"click_events_uniques_mv", "click_events_uniques_hourly_mv", "click_events_uniques_daily_mv",
	"click_events_uniques_total_mv",
	"clicks_hourly_uniques_mv", "clicks_daily_uniques_mv", "clicks_uniques_mv",
	// 0013: the counters' Null batch table and both chains, in place of
	// 0011's, and the direct views on clicks in place of 0002's and 0003's.
	"click_counts_batch", "click_events_counts_mv",
	"click_counts_batch_hourly_mv", "click_counts_batch_totals_mv", "click_counts_batch_owner_totals_mv",
	"click_events_counts_hourly_mv", "click_events_counts_totals_mv", "click_events_counts_owner_totals_mv",
	"clicks_counts_totals_mv", "clicks_counts_hourly_mv",
	// 0014: the daily breakdown keyed by an Enum8, in place of 0011's (whose
	// table stays, frozen, for admins of an earlier version).
	"click_dims_days",
	// 0015: the daily breakdown, three rows per click, in place of 0014's
	// view (whose table stays, frozen).
	"click_breakdown_days", "click_events_breakdown_mv",
}

// droppedTables were dropped by a later migration (0008, 0012-0015).
var droppedTables = []string{"click_touches", "click_touches_mv",
	"click_events_visitors_mv", "click_batch_visitors_mv", "click_events_hourly_visitors_mv",
	"click_batch_hourly_visitors_mv", "click_visitors_mv", "click_hourly_visitors_mv",
	"click_batch", "click_events_batch_mv", "click_batch_hourly_mv", "click_batch_totals_mv",
	"click_batch_owner_totals_mv", "click_events_hourly_mv", "click_events_totals_mv",
	"click_events_owner_totals_mv", "click_hourly_mv", "click_totals_mv",
	"click_events_dims_daily_mv", "click_events_dims_days_mv"}

func checkTables(t *testing.T, conn driver.Conn) {
	t.Helper()
	got := tables(t, conn)
	for _, want := range clickTables {
		if !slices.Contains(got, want) {
			t.Fatalf("table %s missing; have %v", want, got)
		}
	}
	for _, gone := range droppedTables {
		if slices.Contains(got, gone) {
			t.Fatalf("table %s still exists", gone)
		}
	}
}

// fileVersions lists the versions of the embedded migration files.
func fileVersions(t *testing.T) []uint32 {
	t.Helper()
	entries, err := fs.ReadDir(embedded(t), ".")
	if err != nil {
		t.Fatal(err)
	}
	var out []uint32
	for _, e := range entries {
		var v uint32
		if _, err := fmt.Sscanf(e.Name(), "%d_", &v); err != nil {
			t.Fatalf("migration %s: %v", e.Name(), err)
		}
		out = append(out, v)
	}
	slices.Sort(out)
	if !slices.Equal(out[:5], []uint32{1, 2, 3, 4, 5}) {
		t.Fatalf("click migrations 1-5 missing: %v", out)
	}
	return out
}

func TestMigrateAppliesEveryFileOnceAndRepeatsAsNoop(t *testing.T) {
	conn, _ := chtest.New(t) // migrated once already
	ctx := context.Background()
	if err := chstore.Migrate(ctx, conn, embedded(t)); err != nil {
		t.Fatalf("second Migrate: %v", err)
	}
	checkTables(t, conn)
	want := fileVersions(t)
	if got := versions(t, conn); !slices.Equal(got, want) {
		t.Fatalf("versions = %v, want %v", got, want)
	}
	var rows uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM schema_migrations").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != uint64(len(want)) {
		t.Fatalf("schema_migrations has %d rows after a no-op run, want %d", rows, len(want))
	}
}

// emptyDB returns a connection to a fresh database without migrations.
func emptyDB(t *testing.T) driver.Conn {
	t.Helper()
	ctx := context.Background()
	admin, err := chstore.Open(ctx, mustEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := fmt.Sprintf("t_empty_%d", time.Now().UnixNano())
	if err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name) })
	dsn, err := chstore.WithDatabase(mustEnv(t), name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := chstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestMigrateConcurrentRunsAreSafe: four runs at once of the files that
// only create (up to 0012) all succeed and leave the schema whole. From
// 0013 on a file drops views an earlier one created, and runs must be
// serialized (chstore.Migrate; `admin migrate` takes an advisory lock,
// pgstore's TestClickHouseMigrationLockSerialises): one run applies the rest.
func TestMigrateConcurrentRunsAreSafe(t *testing.T) {
	conn := emptyDB(t)
	fsys := upTo(t, 13)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() { errs <- chstore.Migrate(context.Background(), conn, fsys) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent Migrate: %v", err)
		}
	}
	if err := chstore.Migrate(context.Background(), conn, embedded(t)); err != nil {
		t.Fatal(err)
	}
	checkTables(t, conn)
	if got := versions(t, conn); !slices.Equal(got, fileVersions(t)) {
		t.Fatalf("versions = %v", got)
	}
}

func TestMigrateOrderAndErrors(t *testing.T) {
	tests := []struct {
		name    string
		files   fstest.MapFS
		wantErr bool
		want    []string // tables besides schema_migrations
	}{
		{
			name: "numeric order, not lexical",
			files: fstest.MapFS{
				"10_b.sql": {Data: []byte("CREATE TABLE IF NOT EXISTS b AS a")},
				"9_a.sql":  {Data: []byte("-- a; with a semicolon in a comment\nCREATE TABLE IF NOT EXISTS a (x UInt8) ENGINE = Memory;\n\n;")},
				"README":   {Data: []byte("ignored")},
			},
			want: []string{"a", "b"},
		},
		{
			name:    "bad name",
			files:   fstest.MapFS{"first.sql": {Data: []byte("SELECT 1")}},
			wantErr: true,
		},
		{
			name: "duplicate version",
			files: fstest.MapFS{
				"0001_a.sql": {Data: []byte("SELECT 1")},
				"1_b.sql":    {Data: []byte("SELECT 1")},
			},
			wantErr: true,
		},
		{
			name:    "failing statement is not recorded",
			files:   fstest.MapFS{"0001_bad.sql": {Data: []byte("CREATE TABLE nope (x NoSuchType) ENGINE = Memory")}},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn := emptyDB(t)
			err := chstore.Migrate(context.Background(), conn, tt.files)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Migrate error = %v, want error: %v", err, tt.wantErr)
			}
			if tt.wantErr {
				if !slices.Contains(tables(t, conn), "schema_migrations") {
					return // failed before creating it: nothing recorded
				}
				if vs := versions(t, conn); len(vs) != 0 {
					t.Fatalf("versions recorded despite the error: %v", vs)
				}
				return
			}
			got := slices.DeleteFunc(tables(t, conn), func(s string) bool { return s == "schema_migrations" })
			if !slices.Equal(got, tt.want) {
				t.Fatalf("tables = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSplitStatements(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"empty", "", nil},
		{"comments only", "-- a;\n/* b; */\n  ;\n", nil},
		{"two", "CREATE TABLE a (x UInt8) ENGINE = Memory;\nSELECT 1;", []string{"CREATE TABLE a (x UInt8) ENGINE = Memory", "SELECT 1"}},
		{"no trailing semicolon", "SELECT 1", []string{"SELECT 1"}},
		{"semicolon in string", "SELECT 'a;b'; SELECT 2", []string{"SELECT 'a;b'", "SELECT 2"}},
		{"escaped quotes", `SELECT 'it''s;', 'x\';y'; SELECT 3`, []string{`SELECT 'it''s;', 'x\';y'`, "SELECT 3"}},
		{"comment inside statement", "SELECT 1 -- one; really\n+ 1", []string{"SELECT 1 \n+ 1"}},
		{"quoted identifier", "SELECT `a;b` FROM t", []string{"SELECT `a;b` FROM t"}},
		{"block comment", "SELECT /* ; */ 1", []string{"SELECT   1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := chstore.SplitStatements(tt.src); !slices.Equal(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

package chstore

import (
	"io/fs"
	"strings"
	"testing"

	"kurz/migrations"
)

func TestClusterCheck(t *testing.T) {
	for _, c := range []Cluster{{}, {Name: "kurz"}, {Name: "kurz_eu_1", Replicated: true}} {
		if err := c.Check(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	for _, c := range []Cluster{{Replicated: true}, {Name: "a-b"}, {Name: "x`y"}, {Name: "1st"}, {Name: "a b"}, {Name: strings.Repeat("a", 65)}} {
		if err := c.Check(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

func TestClusterDSN(t *testing.T) {
	const dsn = "clickhouse://u:p@127.0.0.1:9000/kurz?dial_timeout=1s"
	if got, err := (Cluster{}).DSN(dsn); err != nil || got != dsn {
		t.Fatalf("one server: %q, %v; want the DSN unchanged", got, err)
	}
	got, err := (Cluster{Name: "kurz"}).DSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := Options(got)
	if err != nil {
		t.Fatal(err)
	}
	if v := opts.Settings["insert_distributed_sync"]; v != 1 {
		t.Fatalf("cluster DSN %q: insert_distributed_sync = %v, want 1", got, v)
	}
	if opts.DialTimeout.String() != "1s" || opts.Auth.Database != "kurz" {
		t.Fatalf("cluster DSN %q lost the original's settings: %+v", got, opts)
	}
	if got, _ := (Cluster{Name: "kurz"}).DSN(dsn + "&insert_distributed_sync=0"); !strings.Contains(got, "insert_distributed_sync=0") {
		t.Fatalf("an explicit setting was replaced: %q", got)
	}
	if _, err := (Cluster{Name: "a;b"}).DSN(dsn); err == nil {
		t.Fatal("a bad cluster name passed")
	}
}

// embeddedStatements returns every statement of the embedded migrations.
func embeddedStatements(t *testing.T) []string {
	t.Helper()
	sub, err := fs.Sub(migrations.ClickHouse, "clickhouse")
	if err != nil {
		t.Fatal(err)
	}
	files, err := migrationFiles(sub)
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{createMigrationsTable}
	for _, f := range files {
		b, err := fs.ReadFile(sub, f.name)
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, SplitStatements(string(b))...)
	}
	return stmts
}

// TestClusterStatementsOfEveryMigration rewrites every embedded statement
// for a cluster, plain and replicated: each CREATE TABLE becomes a local
// table and a Distributed one, every view reads and writes local tables,
// and every DDL statement runs ON CLUSTER in the named database.
func TestClusterStatementsOfEveryMigration(t *testing.T) {
	for _, c := range []Cluster{{Name: "kurz"}, {Name: "kurz", Replicated: true}} {
		for _, stmt := range embeddedStatements(t) {
			if dropColumnRE.MatchString(stmt) {
				continue // the runner's own (dropColumn, shards.go): TestReplicatedAltersShardByShard
			}
			out, err := clusterStatements(stmt, "db", c)
			if err != nil {
				t.Fatalf("%+v: %v", c, err)
			}
			checkRewrite(t, c, stmt, out)
		}
	}
}

func checkRewrite(t *testing.T, c Cluster, stmt string, out []string) {
	t.Helper()
	switch {
	case strings.HasPrefix(stmt, "INSERT"):
		if len(out) != 1 || out[0] != stmt {
			t.Errorf("backfill rewritten: %q", out)
		}
		return
	case strings.HasPrefix(stmt, "CREATE TABLE"):
		if len(out) != 2 || !strings.Contains(out[1], "ENGINE = Distributed('kurz', 'db', '") {
			t.Errorf("%.50q: want a local and a Distributed table, got %q", stmt, out)
		}
		// A Null table (0011's click_batch) stores nothing to replicate.
		if c.Replicated != strings.Contains(out[0], "ENGINE = Replicated") && !strings.HasSuffix(out[0], "ENGINE = Null") {
			t.Errorf("%.50q: replicated %v, got %q", stmt, c.Replicated, out[0])
		}
	case strings.HasPrefix(stmt, "CREATE MATERIALIZED VIEW"):
		// A view of 0011's or 0012's chain for 18.16 reads another
		// view, which every shard has under its own name.
		locals := 2
		for v := range chainedViews {
			if strings.Contains(out[0], "FROM `db`.`"+v+"`") {
				locals = 1
			}
		}
		if len(out) != 1 || strings.Count(out[0], "_local`") != locals {
			t.Errorf("view %.50q: want its target and source local, got %q", stmt, out)
		}
	}
	for _, s := range out {
		if !strings.Contains(s, " ON CLUSTER `kurz`") || !strings.Contains(s, "`db`.`") {
			t.Errorf("%.60q: not ON CLUSTER in db", s)
		}
	}
}

func TestClusterStatementsShapes(t *testing.T) {
	c := Cluster{Name: "kurz", Replicated: true}
	out, err := clusterStatements("CREATE TABLE IF NOT EXISTS click_dims_total (\n  hits UInt64\n) ENGINE = SummingMergeTree(hits)\nORDER BY hits", "db", c)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"CREATE TABLE IF NOT EXISTS `db`.`click_dims_total_local` ON CLUSTER `kurz` (\n  hits UInt64\n) ENGINE = ReplicatedSummingMergeTree('/clickhouse/tables/{shard}/db/click_dims_total_local', '{replica}', hits)\nORDER BY hits",
		"CREATE TABLE IF NOT EXISTS `db`.`click_dims_total` ON CLUSTER `kurz` AS `db`.`click_dims_total_local` ENGINE = Distributed('kurz', 'db', 'click_dims_total_local', cityHash64(target_id))",
	}
	if strings.Join(out, "\n;\n") != strings.Join(want, "\n;\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(out, "\n;\n"), strings.Join(want, "\n;\n"))
	}
	out, err = clusterStatements("CREATE MATERIALIZED VIEW IF NOT EXISTS v TO click_totals AS\nSELECT kind FROM clicks ARRAY JOIN [1] AS d GROUP BY kind", "db", c)
	if err != nil || len(out) != 1 || out[0] != "CREATE MATERIALIZED VIEW IF NOT EXISTS `db`.`v` ON CLUSTER `kurz` TO `db`.`click_totals_local` AS SELECT kind FROM `db`.`clicks_local` ARRAY JOIN [1] AS d GROUP BY kind" {
		t.Fatalf("view: %q, %v", out, err)
	}
	out, err = clusterStatements("DROP TABLE IF EXISTS old", "db", c)
	if err != nil || len(out) != 2 || !strings.Contains(out[1], "`db`.`old_local` ON CLUSTER") {
		t.Fatalf("drop: %q, %v", out, err)
	}
	for _, bad := range []string{
		"ALTER TABLE clicks ADD COLUMN x UInt8",
		"CREATE TABLE IF NOT EXISTS unknown_table (x UInt8) ENGINE = MergeTree ORDER BY x",
		"CREATE TABLE clicks (x UInt8) ENGINE = MergeTree ORDER BY x", // not idempotent
		"CREATE MATERIALIZED VIEW IF NOT EXISTS v TO click_totals AS SELECT kind FROM clicks JOIN click_totals USING kind",
		"CREATE MATERIALIZED VIEW IF NOT EXISTS v TO click_totals AS SELECT kind FROM unknown_table",
		"CREATE MATERIALIZED VIEW IF NOT EXISTS v TO unknown_table AS SELECT kind FROM clicks",
		"CREATE MATERIALIZED VIEW IF NOT EXISTS v ENGINE = MergeTree ORDER BY kind AS SELECT kind FROM clicks",
		"INSERT INTO clicks VALUES (1)",
		"OPTIMIZE TABLE clicks FINAL",
	} {
		if out, err := clusterStatements(bad, "db", c); err == nil {
			t.Errorf("%q accepted: %q", bad, out)
		}
	}
}

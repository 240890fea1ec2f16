package chstore

import (
	"fmt"
	"regexp"
	"strings"
)

// The migration files are written for one server, and single-server
// databases run them byte for byte as they are. On a cluster the runner
// rewrites each statement (clusterStatements). The files keep to a few
// statement shapes; the rewrite accepts exactly those and fails on
// anything else, so a new file that a cluster would get wrong stops the
// migration instead of half-applying it:
//
//	CREATE TABLE IF NOT EXISTS t (…) ENGINE = …
//	    -> the same as db.t_local ON CLUSTER (Replicated* engine when
//	       asked), then db.t ON CLUSTER AS db.t_local ENGINE =
//	       Distributed(cluster, db, t_local, <t's sharding key>)
//	CREATE MATERIALIZED VIEW IF NOT EXISTS v TO t AS SELECT … FROM s …
//	    -> db.v ON CLUSTER TO db.t_local, reading db.s_local: a view
//	       runs on each shard over the rows that shard receives
//	DROP TABLE IF EXISTS t
//	    -> db.t and db.t_local, ON CLUSTER
//	ALTER TABLE t DROP COLUMN c
//	    -> the same on db.t_local, by the runner (dropColumn): ON CLUSTER
//	       for plain tables, shard by shard for replicated ones
//	       (shards.go), skipped where the column is gone. The
//	       Distributed table keeps declaring the column: 18.16 refuses an
//	       ALTER … ON CLUSTER of a table that is not replicated on a
//	       cluster whose shards are, and a Distributed table passes on
//	       the columns a query names, so reads that do not name it work
//	INSERT INTO t (…) SELECT …
//	    -> unchanged: a backfill reads and writes the Distributed
//	       tables, so it sees every shard, and its rows are spread by the
//	       sharding key (the runner inserts with insert_distributed_sync)
//
// ON CLUSTER statements name the database: a server running them from the
// distributed DDL queue would otherwise use its own default database.

// shardingKeys maps every table the migrations create to the expression
// its Distributed table spreads inserted rows by. Clicks go by target, so
// a link's or QR code's raw rows and every per-target aggregate its rows
// feed (totals, hourly, dims, visitors, owner totals) live on one shard:
// one target's reads touch one shard's data, and its visitor sketches
// are never split. Reads do not depend on that: they merge partial aggregates
// across shards. A table missing here cannot be created on a cluster.
var shardingKeys = map[string]string{
	"clicks":                "cityHash64(target_id)",
	"click_totals":          "cityHash64(target_id)",
	"click_hourly":          "cityHash64(target_id)",
	"click_dims_total":      "cityHash64(target_id)",
	"click_visitors":        "cityHash64(target_id)",
	"click_hourly_visitors": "cityHash64(target_id)",
	"click_owner_totals":    "cityHash64(target_id)",
	"click_events":          "cityHash64(target_id)",
	"click_dims_daily":      "cityHash64(target_id)",
	"click_dims_days":       "cityHash64(target_id)",
	"click_breakdown_days":  "cityHash64(target_id)",
	"click_uniques":         "cityHash64(target_id)",
	"click_daily_uniques":   "cityHash64(target_id)",
	"click_hourly_uniques":  "cityHash64(target_id)",
	// Null tables: what a shard's views pass on within one insert (0011,
	// 0012). Nothing is stored or read through their Distributed tables.
	"click_batch":         "cityHash64(target_id)",
	"click_uniques_batch": "cityHash64(target_id)",
	"click_counts_batch":  "cityHash64(target_id)",
	// No target column: the view's rows land on their clicks' shards, a
	// backfill's by owner; reads merge both.
	"click_owner_daily": "cityHash64(owner_id)",
	"ingest_heartbeats": "cityHash64(writer)",
	"price_ticks":       "cityHash64(symbol)",
	"schema_migrations": "version",
}

// chainedViews are the materialized views other views read (0011's chain
// for ClickHouse 18.16, which pushes a view's output to the views on the
// view): on a cluster each shard has them under their own name, so a view
// reading one reads it as it is, not a _local table.
var chainedViews = map[string]bool{"click_events_batch_mv": true, "click_events_uniques_mv": true, "click_events_counts_mv": true}

// LocalSuffix names a table's per-shard part on a cluster.
const LocalSuffix = "_local"

var (
	createTableRE = regexp.MustCompile(`(?s)^CREATE TABLE IF NOT EXISTS (\w+) (\(.*)$`)
	createViewRE  = regexp.MustCompile(`(?s)^CREATE MATERIALIZED VIEW IF NOT EXISTS (\w+) TO (\w+) AS\s+(SELECT\b.*)$`)
	dropTableRE   = regexp.MustCompile(`^DROP TABLE IF EXISTS (\w+)$`)
	dropColumnRE  = regexp.MustCompile(`^ALTER TABLE (\w+) DROP COLUMN (\w+)$`)
	insertRE      = regexp.MustCompile(`(?s)^INSERT INTO \w+ \([^)]*\)\s+SELECT\b`)
	fromRE        = regexp.MustCompile(`\bFROM\s+(\w+)`)
	// joinRE finds a JOIN of tables; ARRAY JOIN (0004) is within a row.
	joinRE = regexp.MustCompile(`(?i)(\w+)\s+JOIN\b`)
	// engineRE finds the MergeTree family engine of a CREATE TABLE and
	// its parameters (SummingMergeTree(hits), ReplacingMergeTree(at)).
	engineRE = regexp.MustCompile(`ENGINE = (\w*)MergeTree(?:\(([^)]*)\))?`)
	// nullEngineRE finds a Null engine, which stays one on replicas.
	nullEngineRE = regexp.MustCompile(`\)\s*ENGINE = Null\s*$`)
)

// clusterStatements rewrites one statement of a migration file for
// cluster c in database db (both valid identifiers).
func clusterStatements(stmt, db string, c Cluster) ([]string, error) {
	switch {
	case createTableRE.MatchString(stmt):
		m := createTableRE.FindStringSubmatch(stmt)
		return clusterTable(m[1], m[2], db, c)
	case createViewRE.MatchString(stmt):
		m := createViewRE.FindStringSubmatch(stmt)
		return clusterView(m[1], m[2], m[3], db, c)
	case dropTableRE.MatchString(stmt):
		name := dropTableRE.FindStringSubmatch(stmt)[1]
		return []string{
			fmt.Sprintf("DROP TABLE IF EXISTS %s ON CLUSTER %s", qualified(db, name), quote(c.Name)),
			fmt.Sprintf("DROP TABLE IF EXISTS %s ON CLUSTER %s", qualified(db, name+LocalSuffix), quote(c.Name)),
		}, nil
	case insertRE.MatchString(stmt):
		return []string{stmt}, nil
	}
	return nil, fmt.Errorf("statement not supported on a cluster (see chstore/clusterddl.go): %.60q", stmt)
}

// alteredTable is the table an ALTER of table changes: on a cluster its
// local tables (see clusterStatements on the Distributed one).
func alteredTable(table string, c Cluster) (string, error) {
	if c.Name == "" {
		return table, nil
	}
	if _, ok := shardingKeys[table]; !ok {
		return "", fmt.Errorf("table %s is not a cluster table (chstore.shardingKeys)", table)
	}
	return table + LocalSuffix, nil
}

// clusterTable is a CREATE TABLE whose text after the name is body.
func clusterTable(name, body, db string, c Cluster) ([]string, error) {
	key, ok := shardingKeys[name]
	if !ok {
		return nil, fmt.Errorf("table %s has no sharding key for a cluster (chstore.shardingKeys)", name)
	}
	local := name + LocalSuffix
	// A Null table stores nothing, so it has nothing to replicate.
	if c.Replicated && !nullEngineRE.MatchString(body) {
		var err error
		if body, err = replicatedEngine(body, db, local); err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
	}
	return []string{
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s ON CLUSTER %s %s", qualified(db, local), quote(c.Name), body),
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s ON CLUSTER %s AS %s ENGINE = Distributed('%s', '%s', '%s', %s)",
			qualified(db, name), quote(c.Name), qualified(db, local), c.Name, db, local, key),
	}, nil
}

// replicatedEngine turns body's XMergeTree(params) into
// ReplicatedXMergeTree(path, replica, params). The path names the
// database and table, so that databases and tables never share one, and
// the {shard} macro, so that a shard's replicas do.
func replicatedEngine(body, db, local string) (string, error) {
	loc := engineRE.FindStringSubmatchIndex(body)
	if loc == nil || len(engineRE.FindAllStringIndex(body, -1)) != 1 {
		return "", fmt.Errorf("want exactly one MergeTree family engine")
	}
	family, params := body[loc[2]:loc[3]], ""
	if loc[4] >= 0 {
		params = strings.TrimSpace(body[loc[4]:loc[5]])
	}
	args := fmt.Sprintf("'/clickhouse/tables/{shard}/%s/%s', '{replica}'", db, local)
	if params != "" {
		args += ", " + params
	}
	return body[:loc[0]] + "ENGINE = Replicated" + family + "MergeTree(" + args + ")" + body[loc[1]:], nil
}

// clusterView is a CREATE MATERIALIZED VIEW name TO target AS sel.
func clusterView(name, target, sel, db string, c Cluster) ([]string, error) {
	if _, ok := shardingKeys[target]; !ok {
		return nil, fmt.Errorf("view %s writes to %s, which is not a cluster table (chstore.shardingKeys)", name, target)
	}
	if joinsTables(sel) {
		return nil, fmt.Errorf("view %s: a JOIN in a view is not supported on a cluster", name)
	}
	var bad error
	froms := 0
	sel = fromRE.ReplaceAllStringFunc(sel, func(m string) string {
		src := fromRE.FindStringSubmatch(m)[1]
		if chainedViews[src] {
			froms++
			return "FROM " + qualified(db, src)
		}
		if _, ok := shardingKeys[src]; !ok {
			bad = fmt.Errorf("view %s reads %s, which is not a cluster table (chstore.shardingKeys)", name, src)
		}
		froms++
		return "FROM " + qualified(db, src+LocalSuffix)
	})
	if bad != nil {
		return nil, bad
	}
	if froms != 1 {
		return nil, fmt.Errorf("view %s: want one FROM table, found %d", name, froms)
	}
	return []string{fmt.Sprintf("CREATE MATERIALIZED VIEW IF NOT EXISTS %s ON CLUSTER %s TO %s AS %s",
		qualified(db, name), quote(c.Name), qualified(db, target+LocalSuffix), sel)}, nil
}

func joinsTables(sel string) bool {
	for _, m := range joinRE.FindAllStringSubmatch(sel, -1) {
		if !strings.EqualFold(m[1], "ARRAY") {
			return true
		}
	}
	return false
}

// quote backquotes a validated identifier.
func quote(id string) string { return "`" + id + "`" }

func qualified(db, table string) string { return quote(db) + "." + quote(table) }

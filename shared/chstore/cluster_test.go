package chstore_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// The cluster tests run against deploy/local/cluster.sh's servers, which
// `make test` and `make test-cluster` start (chtest.EnvClusterURL).

var (
	sharded    = chstore.Cluster{Name: chtest.ShardedCluster}
	replicated = chstore.Cluster{Name: chtest.ReplicatedCluster, Replicated: true}
)

func openDSN(t *testing.T, dsn string) driver.Conn {
	t.Helper()
	conn, err := chstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestClusterMigrateCreatesShardTables: every server of the cluster has
// each table as <name>_local, the views, and the Distributed table under
// the original name; a second run changes nothing.
func TestClusterMigrateCreatesShardTables(t *testing.T) {
	t.Parallel() // own databases; the servers run the DDL of all of them in turn
	conn, _ := chtest.NewCluster(t, chtest.ClusterDSN(t, chtest.EnvClusterURL), sharded)
	before := versions(t, conn)
	if !slices.Equal(before, fileVersions(t)) {
		t.Fatalf("versions %v, want %v", before, fileVersions(t))
	}
	for _, dsn := range chtest.ServerDSNs(t, conn, sharded) {
		got := tables(t, openDSN(t, dsn))
		for _, name := range clickTables {
			want := []string{name}
			if !slices.Contains([]string{"_mv"}, name[max(0, len(name)-3):]) {
				want = append(want, name+chstore.LocalSuffix)
			}
			for _, w := range want {
				if !slices.Contains(got, w) {
					t.Errorf("%s: table %s missing; have %v", chstore.Redact(dsn), w, got)
				}
			}
		}
		for _, gone := range droppedTables {
			if slices.Contains(got, gone) {
				t.Errorf("%s: dropped table %s exists", chstore.Redact(dsn), gone)
			}
		}
		// 0013 on every server: released, and the dead columns gone from
		// the shards' tables.
		server := openDSN(t, dsn)
		for _, table := range []string{"click_events_local", "clicks_local"} {
			if held := holdColumns(columns(t, server, table)); len(held) > 0 {
				t.Errorf("%s: %s still held: %v", chstore.Redact(dsn), table, held)
			}
		}
		for _, table := range []string{"click_hourly_local", "click_totals_local", "click_counts_batch_local"} {
			if cols := columns(t, server, table); len(cols) == 0 || slices.Contains(cols, "visitors") {
				t.Errorf("%s: %s has columns %v; want it, without visitors", chstore.Redact(dsn), table, cols)
			}
		}
	}
	if err := chstore.MigrateEmbeddedCluster(context.Background(), conn, sharded); err != nil {
		t.Fatal(err)
	}
	if after := versions(t, conn); !slices.Equal(after, before) {
		t.Fatalf("versions after a second run %v, want %v", after, before)
	}
	// The layouts do not mix: a cluster's database refuses a single-server
	// run, a single server's database a cluster run.
	if err := chstore.MigrateEmbedded(context.Background(), conn); err == nil || !strings.Contains(err.Error(), "KURZ_CLICKHOUSE_CLUSTER") {
		t.Fatalf("single-server migration of a cluster database: %v", err)
	}
	single, _ := chtest.New(t)
	if err := chstore.MigrateEmbeddedCluster(context.Background(), single, sharded); err == nil || !strings.Contains(err.Error(), "one server") {
		t.Fatalf("cluster migration of a single-server database: %v", err)
	}
}

func insertAll(t *testing.T, conn driver.Conn, rows []click.Row) {
	t.Helper()
	var blk click.Block
	if err := chstore.InsertRows(context.Background(), conn, &blk, rows, chstore.Chunking{Rows: 1000}); err != nil {
		t.Fatal(err)
	}
}

// sameClicks inserts n clicks (chtest.Clicks) into a new database of
// cluster c, whose server env names, and into one on the single test
// server.
func sameClicks(t *testing.T, env string, c chstore.Cluster, n int) (cluster, single driver.Conn, now time.Time, rows []click.Row) {
	t.Helper()
	cluster, _ = chtest.NewCluster(t, chtest.ClusterDSN(t, env), c)
	single, _ = chtest.New(t)
	now = time.Now().UTC().Truncate(time.Second)
	rows = chtest.Clicks(now, n)
	insertAll(t, cluster, rows)
	insertAll(t, single, rows)
	return cluster, single, now, rows
}

// reads is every chstore read of the stats, for one set of targets.
type reads struct {
	Summaries map[string]*chstore.Summary
	Totals    map[int64]chstore.Totals
	// Keyed is the keyed reads' numbers (their keys name each server's
	// own parts); readAll checks them against Totals and each other.
	Keyed    map[int64]chstore.Totals
	Rankings map[int64]chstore.Ranked
	// RankTotals is each ranking's own total (ReadRanking's WITH TOTALS);
	// readAll checks it against ReadOwnerHumans.
	RankTotals map[int64]uint64
	Windows    map[int64]chstore.OwnerWindows
	Ranges     map[int64]chstore.RangeBreakdown
	Counts     map[string]chstore.Counts
}

func readAll(t *testing.T, conn driver.Conn, now time.Time) reads {
	t.Helper()
	ctx := context.Background()
	r := reads{Summaries: map[string]*chstore.Summary{}, Rankings: map[int64]chstore.Ranked{}, RankTotals: map[int64]uint64{},
		Windows: map[int64]chstore.OwnerWindows{}, Ranges: map[int64]chstore.RangeBreakdown{}, Counts: map[string]chstore.Counts{}}
	var ids []int64
	// Ranges are whole UTC days (the daily tables of 0011).
	day := now.Truncate(24 * time.Hour)
	from, end := day.AddDate(0, 0, -10), day.AddDate(0, 0, 1)
	for id := int64(1); id <= 41; id++ {
		ids = append(ids, id)
		for _, k := range []click.Kind{click.KindLink, click.KindQR} {
			s, err := chstore.ReadSummary(ctx, conn, k, id)
			if err != nil {
				t.Fatal(err)
			}
			r.Summaries[fmt.Sprint(k, "/", id)] = s
			if r.Counts[fmt.Sprint(k, "/", id)], err = chstore.ReadCounts(ctx, conn, k, id); err != nil {
				t.Fatal(err)
			}
		}
		var err error
		if r.Ranges[id], err = chstore.ReadRangeBreakdown(ctx, conn, click.KindLink, id, from, end); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if r.Totals, err = chstore.ReadTotals(ctx, conn, click.KindLink, ids, true); err != nil {
		t.Fatal(err)
	}
	if r.Keyed = readKeyed(t, conn, ids); !reflect.DeepEqual(r.Keyed, r.Totals) {
		t.Errorf("the keyed reads' numbers %v, ReadTotals %v", r.Keyed, r.Totals)
	}
	for owner := int64(1); owner <= 4; owner++ {
		if r.Rankings[owner], r.RankTotals[owner], err = chstore.ReadRanking(ctx, conn, click.KindLink, owner, 0); err != nil {
			t.Fatal(err)
		}
		humans, err := chstore.ReadOwnerHumans(ctx, conn, click.KindLink, owner)
		if err != nil {
			t.Fatal(err)
		}
		if humans != r.RankTotals[owner] {
			t.Errorf("owner %d: the ranking's total %d, ReadOwnerHumans %d", owner, r.RankTotals[owner], humans)
		}
		if r.Windows[owner], err = chstore.ReadOwnerWindows(ctx, conn, click.KindLink, owner, now); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// readKeyed returns the keyed reads' numbers of ids, checking that the
// clicks and the unique clicks name the same parts (nothing changes
// between the two reads here) and that only visited ids have parts.
func readKeyed(t *testing.T, conn driver.Conn, ids []int64) map[int64]chstore.Totals {
	t.Helper()
	clicks, uniques := bothKeyed(t, conn, ids)
	out := map[int64]chstore.Totals{}
	for _, id := range ids {
		c, u := clicks[id], uniques[id]
		if c.Key != u.Key || (u.Key == "") != (u.UniqueClicks == 0) || c.Clicks != u.Clicks {
			t.Errorf("link %d: clicks %+v keyed %q, totals %+v keyed %q", id, c.Totals, c.Key, u.Totals, u.Key)
		}
		out[id] = u.Totals
	}
	return out
}

// TestClusterReadsEqualOneServer inserts the same clicks through the
// Distributed table of a two-shard cluster and into one server: both
// shards hold some, and every stats read gives the same numbers, which
// are the numbers sent.
func TestClusterReadsEqualOneServer(t *testing.T) {
	t.Parallel() // own databases; the servers run the DDL of all of them in turn
	conn, single, now, rows := sameClicks(t, chtest.EnvClusterURL, sharded, 5000)

	var total uint64
	for _, dsn := range chtest.ServerDSNs(t, conn, sharded) {
		var n uint64
		if err := openDSN(t, dsn).QueryRow(context.Background(), "SELECT count() FROM "+click.Table+chstore.LocalSuffix).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("%s holds no clicks: the Distributed table does not spread them", chstore.Redact(dsn))
		}
		total += n
	}
	if total != uint64(len(rows)) {
		t.Fatalf("the shards hold %d clicks, %d were sent", total, len(rows))
	}

	got, want := readAll(t, conn, now), readAll(t, single, now)
	checkSent(t, got, rows)
	if !reflect.DeepEqual(got, want) {
		for k := range want.Summaries {
			if !reflect.DeepEqual(got.Summaries[k], want.Summaries[k]) {
				t.Errorf("summary %s: cluster %+v, one server %+v", k, got.Summaries[k], want.Summaries[k])
			}
		}
		t.Fatalf("cluster reads differ from one server's:\ncluster %+v\none server %+v", got, want)
	}
}

// checkSent compares the reads with counts of the rows themselves.
func checkSent(t *testing.T, got reads, rows []click.Row) {
	t.Helper()
	humans, owners := map[string]uint64{}, map[int64]int64{}
	for _, r := range rows {
		if r.Class == click.ClassHuman {
			humans[fmt.Sprint(r.Kind, "/", r.TargetID())]++
			if r.Kind == click.KindLink {
				owners[int64(r.OwnerID)]++
			}
		}
	}
	var sum uint64
	for k, s := range got.Summaries {
		if s.Clicks != humans[k] {
			t.Errorf("%s: %d clicks read, %d sent", k, s.Clicks, humans[k])
		}
		sum += s.Clicks
	}
	if sum == 0 {
		t.Fatal("no human clicks read")
	}
	for owner, want := range owners {
		var n int64
		for _, c := range got.Rankings[owner].Clicks {
			n += c
		}
		if n != want {
			t.Errorf("owner %d: ranking sums to %d, %d sent", owner, n, want)
		}
	}
}

// TestReplicatedClusterReplicates migrates the ReplicatedMergeTree
// variant on one shard of two replicas, inserts through one, and finds
// every click and aggregate on both replicas.
func TestReplicatedClusterReplicates(t *testing.T) {
	t.Parallel() // own databases; the servers run the DDL of all of them in turn
	conn, single, now, rows := sameClicks(t, chtest.EnvReplicatedURL, replicated, 2000)
	want := readAll(t, single, now)
	ctx := context.Background()
	for _, dsn := range chtest.ServerDSNs(t, conn, replicated) {
		replica := openDSN(t, dsn)
		var engine string
		if err := replica.QueryRow(ctx, "SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = ?", click.Table+chstore.LocalSuffix).Scan(&engine); err != nil || engine != "ReplicatedMergeTree" {
			t.Fatalf("%s: %s_local engine %q, %v", chstore.Redact(dsn), click.Table, engine, err)
		}
		for _, tbl := range []string{"clicks", click.Table, "click_totals", "click_hourly", "click_dims_total", "click_dims_days", "click_breakdown_days", "click_uniques", "click_daily_uniques", "click_hourly_uniques", "click_owner_totals", "click_owner_daily"} {
			if err := replica.Exec(ctx, "SYSTEM SYNC REPLICA "+tbl+chstore.LocalSuffix); err != nil {
				t.Fatalf("%s: sync %s: %v", chstore.Redact(dsn), tbl, err)
			}
		}
		var n uint64
		if err := replica.QueryRow(ctx, "SELECT count() FROM "+click.Table+chstore.LocalSuffix).Scan(&n); err != nil || n != uint64(len(rows)) {
			t.Fatalf("%s: replica holds %d clicks (%v), %d were sent", chstore.Redact(dsn), n, err, len(rows))
		}
		if got := readAll(t, replica, now); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: replica's reads differ from one server's:\nreplica %+v\none server %+v", chstore.Redact(dsn), got, want)
		}
	}
}

// TestClusterBackfills: clicks stored on a cluster before 0007, 0009 and
// 0010 are in those migrations' tables afterwards: the backfills read and
// write through the Distributed tables, so they see every shard, and
// their "table is empty" guards count every shard.
func TestClusterBackfills(t *testing.T) {
	t.Parallel() // own databases; the servers run the DDL of all of them in turn
	ctx := context.Background()
	dsn := chtest.EmptyCluster(t, chtest.ClusterDSN(t, chtest.EnvClusterURL), sharded)
	conn, err := chstore.OpenCluster(ctx, dsn, sharded)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := chstore.MigrateCluster(ctx, conn, upTo(t, 7), sharded); err != nil {
		t.Fatal(err)
	}
	// Before 0011 the clicks went to clicks.
	var blk click.Block
	if err := chstore.InsertRowsInto(ctx, conn, "clicks", &blk, chtest.Clicks(time.Now().UTC(), 2000), chstore.Chunking{Rows: 1000}); err != nil {
		t.Fatal(err)
	}
	if err := chstore.MigrateCluster(ctx, conn, embedded(t), sharded); err != nil {
		t.Fatal(err)
	}
	got, want := readBackfill(t, conn)
	if got != want || want.ownerHumans == 0 || want.visitors == 0 {
		t.Fatalf("after the backfills: %+v, raw %+v", got, want)
	}
	var owners, humans uint64
	if err := conn.QueryRow(ctx, `SELECT (SELECT sum(humans) FROM click_owner_totals),
		(SELECT count() FROM clicks WHERE class = 'human')`).Scan(&owners, &humans); err != nil {
		t.Fatal(err)
	}
	if owners != humans {
		t.Fatalf("click_owner_totals holds %d human clicks after its backfill, the raw table %d", owners, humans)
	}
	// 0012's sketches, rebuilt from the raw rows of every shard.
	for table, c := range readUniques(t, conn) {
		if c.exact == 0 || c.stored != c.exact || c.keys != c.rawKeys {
			t.Errorf("%s holds %d visitors in %d keys after the backfill; the raw rows %d in %d keys", table, c.stored, c.keys, c.exact, c.rawKeys)
		}
	}
}

// TestClusterMixedRolloutEqualsOneServer: during a rollout across 0011
// an old edge writes clicks and a new one click_events. On a cluster,
// half the clicks through each raw table give every read the numbers of
// one server where all went to clicks, and the numbers sent.
func TestClusterMixedRolloutEqualsOneServer(t *testing.T) {
	t.Parallel() // own databases; the servers run the DDL of all of them in turn
	ctx := context.Background()
	cluster, _ := chtest.NewCluster(t, chtest.ClusterDSN(t, chtest.EnvClusterURL), sharded)
	single, _ := chtest.New(t)
	now := time.Now().UTC().Truncate(time.Second)
	rows := chtest.Clicks(now, 4000)
	var blk click.Block
	half := len(rows) / 2
	for _, ins := range []struct {
		conn  driver.Conn
		table string
		rows  []click.Row
	}{
		{cluster, "clicks", rows[:half]}, {cluster, click.Table, rows[half:]}, {single, "clicks", rows},
	} {
		if err := chstore.InsertRowsInto(ctx, ins.conn, ins.table, &blk, ins.rows, chstore.Chunking{Rows: 1000}); err != nil {
			t.Fatalf("insert into %s: %v", ins.table, err)
		}
	}
	got, want := readAll(t, cluster, now), readAll(t, single, now)
	checkSent(t, got, rows)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("cluster reads after a mixed rollout differ from one server's:\ncluster %+v\none server %+v", got, want)
	}
}

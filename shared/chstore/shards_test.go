package chstore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
	"kurz/shared/chstore/chtest"
	"kurz/shared/click"
)

// TestReplicatedAltersShardByShard: replicated tables on two shards (the
// sharded test cluster's servers, each its shard's only replica) take the
// column ALTERs of the migrations (0013's hold and dropped columns) one
// shard at a time, without ON CLUSTER (shards.go). A run that cannot
// reach the other shard stops before altering anything; with a dialer
// every server ends released and without the dropped columns; and a hold
// on the cluster refuses an insert that has rows for the dialed shard.
func TestReplicatedAltersShardByShard(t *testing.T) {
	t.Parallel() // own databases; the servers run the DDL of all of them in turn
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := chstore.Cluster{Name: chtest.ShardedCluster, Replicated: true}
	dsn := chtest.EmptyCluster(t, chtest.ClusterDSN(t, chtest.EnvClusterURL), c)
	conn, err := chstore.OpenCluster(ctx, dsn, c)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	err = chstore.MigrateClusterWith(ctx, conn, embedded(t), c, chstore.MigrateOptions{})
	if err == nil || !strings.Contains(err.Error(), "DialServer") {
		t.Fatalf("migration without a dialer: %v; want it to stop at the other shard", err)
	}
	servers := chtest.ServerDSNs(t, conn, c)
	if len(servers) != 2 {
		t.Fatalf("servers %v, want two shards", servers)
	}
	for _, s := range servers {
		if held := holdColumns(columns(t, openDSN(t, s), "click_events_local")); len(held) > 0 {
			t.Fatalf("%s: held %v by a run that stopped", chstore.Redact(s), held)
		}
	}

	dial := chstore.ServerDialer(dsn, c)
	if err := chstore.MigrateClusterWith(ctx, conn, embedded(t), c, chstore.MigrateOptions{DialServer: dial}); err != nil {
		t.Fatal(err)
	}
	if got := versions(t, conn); !slices.Equal(got, fileVersions(t)) {
		t.Fatalf("versions %v, want %v", got, fileVersions(t))
	}
	for _, s := range servers {
		server := openDSN(t, s)
		var engine string
		if err := server.QueryRow(ctx, "SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'click_hourly_local'").Scan(&engine); err != nil || engine != "ReplicatedAggregatingMergeTree" {
			t.Fatalf("%s: click_hourly_local engine %q, %v", chstore.Redact(s), engine, err)
		}
		for _, table := range []string{"click_events_local", "clicks_local"} {
			if held := holdColumns(columns(t, server, table)); len(held) > 0 {
				t.Errorf("%s: %s still held: %v", chstore.Redact(s), table, held)
			}
		}
		for _, table := range []string{"click_hourly_local", "click_totals_local"} {
			if cols := columns(t, server, table); len(cols) == 0 || slices.Contains(cols, "visitors") {
				t.Errorf("%s: %s has columns %v; want it, without visitors", chstore.Redact(s), table, cols)
			}
		}
	}

	// Rows for both shards (the sharding key spreads them), through the
	// Distributed table: refused while held, whole.
	rows := chtest.Clicks(time.Now().UTC(), 200)
	if err := chstore.HoldOn(ctx, conn, c, dial, click.Table, 99); err != nil {
		t.Fatal(err)
	}
	var remote struct {
		Host string `ch:"host_name"`
		Port uint16 `ch:"port"`
	}
	if err := conn.QueryRow(ctx, "SELECT host_name, port FROM system.clusters WHERE cluster = ? AND is_local = 0", c.Name).ScanStruct(&remote); err != nil {
		t.Fatal(err)
	}
	otherDSN := fmt.Sprintf("clickhouse://%s:%d/%s", remote.Host, remote.Port, database(t, conn))
	other := openDSN(t, otherDSN)
	if !slices.Contains(columns(t, other, "click_events_local"), chstore.HoldColumn(99)) {
		t.Fatalf("%s: not held after the hold", chstore.Redact(otherDSN))
	}
	var blk click.Block
	if err := chstore.InsertRows(ctx, conn, &blk, rows, chstore.Chunking{}); err == nil {
		t.Fatal("an insert went through a held cluster")
	}
	var n, onOther uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM "+click.Table).Scan(&n); err != nil || n != 0 {
		t.Fatalf("while held: %d clicks stored (%v), want none", n, err)
	}
	if err := chstore.ReleaseOn(ctx, conn, c, dial, click.Table, 99); err != nil {
		t.Fatal(err)
	}
	insertAll(t, conn, rows)
	if err := conn.QueryRow(ctx, "SELECT count() FROM "+click.Table).Scan(&n); err != nil || n != uint64(len(rows)) {
		t.Fatalf("after the release: %d clicks (%v), want %d", n, err, len(rows))
	}
	if err := other.QueryRow(ctx, "SELECT count() FROM click_events_local").Scan(&onOther); err != nil || onOther == 0 || onOther == n {
		t.Fatalf("the dialed shard holds %d of %d clicks (%v): the rows were not spread over both shards", onOther, n, err)
	}
}

func database(t *testing.T, conn driver.Conn) string {
	t.Helper()
	var db string
	if err := conn.QueryRow(context.Background(), "SELECT currentDatabase()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	return db
}

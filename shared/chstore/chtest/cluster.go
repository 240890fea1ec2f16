package chtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
)

// The test clusters deploy/local/cluster.sh configures on its servers.
const (
	// EnvClusterURL names the DSN of a server of ShardedCluster.
	EnvClusterURL = "KURZ_TEST_CLICKHOUSE_CLUSTER_URL"
	// EnvReplicatedURL names the DSN of a server of ReplicatedCluster.
	EnvReplicatedURL = "KURZ_TEST_CLICKHOUSE_REPLICATED_URL"
	// ShardedCluster is two shards of one replica each.
	ShardedCluster = "kurz_sharded"
	// ReplicatedCluster is one shard of two replicas.
	ReplicatedCluster = "kurz_replicated"
)

// ClusterDSN returns the DSN in env, failing t when it is unset: the
// cluster tests run under `make test` and `make test-cluster`, which start
// the cluster (deploy/local/cluster.sh).
func ClusterDSN(t testing.TB, env string) string {
	t.Helper()
	dsn := os.Getenv(env)
	if dsn == "" {
		t.Fatalf("%s is not set: run the tests with `make test` or `make test-cluster`, which start a ClickHouse cluster (deploy/local/cluster.sh)", env)
	}
	return dsn
}

// NewCluster is New on a cluster: a fresh database t_<random> on every
// server of c, migrated for c through the server at adminDSN. It returns
// a connection to that server's database (with c's settings) and its DSN.
// The database is dropped on every server when t ends.
func NewCluster(t testing.TB, adminDSN string, c chstore.Cluster) (driver.Conn, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	name := "t_" + randomHex(8)
	// Created here on the one server, so that the connection can name it;
	// the migration creates it on the others.
	if err := execAdmin(ctx, adminDSN, "CREATE DATABASE IF NOT EXISTS "+name); err != nil {
		t.Fatalf("chtest: is the ClickHouse cluster at %s running? %v", chstore.Redact(adminDSN), err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := execAdmin(ctx, adminDSN, "DROP DATABASE IF EXISTS "+name+" ON CLUSTER "+c.Name); err != nil {
			t.Logf("chtest: drop %s on %s: %v", name, c.Name, err)
		}
	})
	dsn, err := chstore.WithDatabase(adminDSN, name)
	if err == nil {
		dsn, err = c.DSN(dsn)
	}
	if err != nil {
		t.Fatalf("chtest: %v", err)
	}
	conn, err := chstore.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("chtest: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := chstore.MigrateEmbeddedCluster(ctx, conn, c); err != nil {
		t.Fatalf("chtest: migrate %s on cluster %s: %v", name, c.Name, err)
	}
	return conn, dsn
}

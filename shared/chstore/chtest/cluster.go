package chtest

import (
	"context"
	"fmt"
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
	dsn := EmptyCluster(t, adminDSN, c)
	conn, err := chstore.OpenCluster(ctx, dsn, c)
	if err != nil {
		t.Fatalf("chtest: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := chstore.MigrateEmbeddedCluster(ctx, conn, c); err != nil {
		t.Fatalf("chtest: migrate %s on cluster %s: %v", chstore.Redact(dsn), c.Name, err)
	}
	return conn, dsn
}

// EmptyCluster creates a fresh database t_<random> on the server at
// adminDSN, a server of cluster c, and returns its DSN; migrating it for c
// creates it on the cluster's other servers. It is dropped on every server
// when t ends.
func EmptyCluster(t testing.TB, adminDSN string, c chstore.Cluster) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name := "t_" + randomHex(8)
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
	if err != nil {
		t.Fatalf("chtest: %v", err)
	}
	return dsn
}

// ServerDSNs returns a DSN of conn's database on every server of cluster
// c as conn's server lists them (system.clusters), shard by shard.
func ServerDSNs(t testing.TB, conn driver.Conn, c chstore.Cluster) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var db string
	if err := conn.QueryRow(ctx, "SELECT currentDatabase()").Scan(&db); err != nil {
		t.Fatalf("chtest: %v", err)
	}
	var hosts []struct {
		Host string `ch:"host_address"`
		Port uint16 `ch:"port"`
	}
	if err := conn.Select(ctx, &hosts,
		"SELECT host_address, port FROM system.clusters WHERE cluster = ? ORDER BY shard_num, replica_num", c.Name); err != nil {
		t.Fatalf("chtest: servers of %s: %v", c.Name, err)
	}
	if len(hosts) == 0 {
		t.Fatalf("chtest: the server knows no cluster %s (deploy/local/cluster.sh)", c.Name)
	}
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = fmt.Sprintf("clickhouse://%s:%d/%s", h.Host, h.Port, db)
	}
	return out
}

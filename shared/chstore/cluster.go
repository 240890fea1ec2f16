package chstore

import (
	"context"
	"fmt"
	"net/url"
	"regexp"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Cluster is how kurz's ClickHouse tables are laid out (docs/scaling.md,
// "ClickHouse cluster"). The zero value is one server: the tables the
// migrations name, as they always were. With a Name, every table is a
// <table>_local on each shard of that cluster (remote_servers in the
// servers' config), created ON CLUSTER, with a Distributed table under the
// original name in front of them: reads and inserts keep their table
// names and reach every shard.
type Cluster struct {
	Name string // KURZ_CLICKHOUSE_CLUSTER; "" = a single server
	// Replicated makes the local tables ReplicatedMergeTree family
	// tables (KURZ_CLICKHOUSE_REPLICATED=1), replicas of a shard being
	// the servers that share the {shard} macro.
	Replicated bool
}

// identifier is what a cluster or database name may look like: it is
// quoted into DDL, so nothing that could end a quote gets in.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// ValidIdentifier reports whether s may name a cluster or database.
func ValidIdentifier(s string) bool { return identifier.MatchString(s) }

// Check reports a cluster name that is not a plain identifier, and
// Replicated without a cluster.
func (c Cluster) Check() error {
	if c.Name == "" {
		if c.Replicated {
			return fmt.Errorf("clickhouse: replicated tables need a cluster (KURZ_CLICKHOUSE_CLUSTER)")
		}
		return nil
	}
	if !ValidIdentifier(c.Name) {
		return fmt.Errorf("clickhouse cluster %q: want letters, digits and _ (at most 64)", c.Name)
	}
	return nil
}

// DSN returns dsn with the connection settings the layout needs. On a
// cluster that is insert_distributed_sync=1: an INSERT into a Distributed
// table returns once every shard has stored its rows, so the edge's
// pipeline may treat a returned insert as durable, and its replay check
// (edge/internal/clicks, replay.go) reads what it sent. Without it the
// rows wait in the receiving server's local queue and reach the shards
// later. A setting the DSN already names is left alone; a single server
// gets dsn unchanged.
func (c Cluster) DSN(dsn string) (string, error) {
	if err := c.Check(); err != nil {
		return "", err
	}
	if c.Name == "" {
		return dsn, nil
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("parse clickhouse dsn %s: %w", Redact(dsn), err)
	}
	q := u.Query()
	if q.Get("insert_distributed_sync") == "" {
		q.Set("insert_distributed_sync", "1")
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// OpenCluster is Open with the settings of layout c (DSN).
func OpenCluster(ctx context.Context, dsn string, c Cluster) (driver.Conn, error) {
	dsn, err := c.DSN(dsn)
	if err != nil {
		return nil, err
	}
	return Open(ctx, dsn)
}

// DialCluster is Dial with the settings of layout c (DSN).
func DialCluster(ctx context.Context, dsn string, c Cluster) (conn driver.Conn, down, err error) {
	if dsn, err = c.DSN(dsn); err != nil {
		return nil, nil, err
	}
	return Dial(ctx, dsn)
}

package chstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// A column ALTER of a replicated table (a hold, its release, a migration's
// DROP COLUMN) is sent to one replica of each shard, without ON CLUSTER:
// the table replicates it to the shard's other replicas itself and
// returns once the active ones applied it.
//
// Why not ON CLUSTER: ClickHouse 18.16 runs such an ALTER on one replica
// per shard, picked through a lock in ZooKeeper, and that races. In a loop
// of ADD and DROP COLUMN ON CLUSTER on a one-shard, two-replica cluster
// (deploy/local/cluster.sh), both replicas ran the seventh ALTER; the
// second failed ("column already exists", then "Node exists" on the DDL
// task's executed node), and that server's DDL queue stood still: every
// later ON CLUSTER statement waited out distributed_ddl_task_timeout
// (180 s) until the server restarted. One of four fresh-clone CI runs
// failed so (edge/PERFORMANCE.md, ninth session). The same loop of 160
// ALTERs sent to one replica took 13 s without a failure.

// ServerDialer returns a MigrateOptions.DialServer that connects to a
// server of layout c at a host:port with everything else of dsn (user,
// password, database, settings).
func ServerDialer(dsn string, c Cluster) func(ctx context.Context, addr string) (driver.Conn, error) {
	return func(ctx context.Context, addr string) (driver.Conn, error) {
		u, err := url.Parse(dsn)
		if err != nil {
			return nil, fmt.Errorf("parse clickhouse dsn: %w", err)
		}
		u.Host = addr
		return OpenCluster(ctx, u.String(), c)
	}
}

// shardServer is the connection a replicated ALTER of one shard goes to.
type shardServer struct {
	shard  uint32
	conn   driver.Conn
	dialed bool // opened by the runner, closed by it
}

// replica is a server of a shard as system.clusters lists it.
type replica struct {
	Shard uint32 `ch:"shard_num"`
	Host  string `ch:"host_name"`
	Port  uint16 `ch:"port"`
	Local uint8  `ch:"is_local"`
}

// shardServers returns one server of each shard of the cluster: this one
// for its own shard, for each other shard the first of its replicas that
// r.dial reaches. host_name, not host_address: a TLS certificate names
// the host.
func (r *runner) shardServers(ctx context.Context) ([]shardServer, error) {
	if r.shards != nil {
		return r.shards, nil
	}
	var rows []replica
	if err := r.conn.Select(ctx, &rows, `SELECT shard_num, host_name, port, is_local FROM system.clusters
		WHERE cluster = ? ORDER BY shard_num, is_local DESC, replica_num`, r.c.Name); err != nil {
		return nil, fmt.Errorf("read the shards of cluster %s: %w", r.c.Name, err)
	}
	var out []shardServer
	for from := 0; from < len(rows); {
		to := from + 1
		for to < len(rows) && rows[to].Shard == rows[from].Shard {
			to++
		}
		sh, err := r.shardServer(ctx, rows[from:to])
		if err != nil {
			closeShards(out)
			return nil, err
		}
		out = append(out, sh)
		from = to
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("this server knows no cluster %s (remote_servers)", r.c.Name)
	}
	r.shards = out
	return out, nil
}

// shardServer picks the server of one shard, given its replicas with this
// server (if it is one) first.
func (r *runner) shardServer(ctx context.Context, replicas []replica) (shardServer, error) {
	shard := replicas[0].Shard
	if replicas[0].Local == 1 {
		return shardServer{shard: shard, conn: r.conn}, nil
	}
	if r.dial == nil {
		return shardServer{}, fmt.Errorf("shard %d of cluster %s: a replicated ALTER must reach one server of each shard, and this run cannot dial others (MigrateOptions.DialServer)", shard, r.c.Name)
	}
	var errs []error
	for _, rep := range replicas {
		conn, err := r.dial(ctx, net.JoinHostPort(rep.Host, strconv.Itoa(int(rep.Port))))
		if err == nil {
			return shardServer{shard: shard, conn: conn, dialed: true}, nil
		}
		errs = append(errs, err)
	}
	return shardServer{}, fmt.Errorf("shard %d of cluster %s: no replica reached: %w", shard, r.c.Name, errors.Join(errs...))
}

func closeShards(s []shardServer) {
	for _, sh := range s {
		if sh.dialed {
			sh.conn.Close() //nolint:errcheck
		}
	}
}

// changeColumn adds (add) or drops column col of table by `ALTER TABLE
// table <clause>` where the column is not yet as wanted, so that a file
// can run again: 18.16 has neither ADD COLUMN IF NOT EXISTS nor DROP
// COLUMN IF EXISTS. table is a local table on a cluster. On a cluster of
// plain tables the state is read on this server and the ALTER runs ON
// CLUSTER; replicated tables are altered shard by shard (above).
func (r *runner) changeColumn(ctx context.Context, table, col string, add bool, clause string) error {
	done := columnGone
	if add {
		done = columnThere
	}
	alter := func(conn driver.Conn, target string) error {
		has, err := hasColumn(ctx, conn, table, col)
		if err != nil || has == add {
			return err
		}
		if err := conn.Exec(r.alterCtx(ctx), "ALTER TABLE "+target+" "+clause); err != nil && !done(err) {
			return err
		}
		return nil
	}
	switch {
	case r.c.Name == "":
		return alter(r.conn, quote(table))
	case !r.c.Replicated:
		return alter(r.conn, qualified(r.db, table)+" ON CLUSTER "+quote(r.c.Name))
	}
	shards, err := r.shardServers(ctx)
	if err != nil {
		return err
	}
	for _, sh := range shards {
		if err := alter(sh.conn, qualified(r.db, table)); err != nil {
			return fmt.Errorf("shard %d: %w", sh.shard, err)
		}
	}
	return nil
}

// alterCtx is r.ctx for a column ALTER: on replicated tables it returns
// once every active replica of the shard applied it. 18.16 waits so by
// itself; later releases wait for the replica they ran on only, unless
// told (alter_sync, of which this is the older name both accept).
func (r *runner) alterCtx(ctx context.Context) context.Context {
	if !r.c.Replicated {
		return r.ctx(ctx)
	}
	return clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{
		"insert_distributed_sync":           1,
		"replication_alter_partitions_sync": 2,
	}))
}

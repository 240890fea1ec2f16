package chstore

import (
	"context"
	"fmt"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Dial is Open for a process that must start while ClickHouse is down
// (the edge: clicks spool to disk and are replayed later). A DSN that
// does not parse is an error; a server that does not answer the ping
// within ctx is reported as down, with a lazily connecting client that
// works once the server is back.
func Dial(ctx context.Context, dsn string) (conn driver.Conn, down, err error) {
	opts, err := Options(dsn)
	if err != nil {
		return nil, nil, err
	}
	if conn, down = Open(ctx, dsn); down == nil {
		return conn, nil, nil
	}
	conn, err = clickhouse.Open(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("open clickhouse %s: %w", Redact(dsn), err)
	}
	return conn, down, nil
}

package chstore

import (
	"context"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Unexported functions the external tests (package chstore_test, which
// may import chtest) call.
var (
	CheckViewChaining = checkViewChaining
	JudgeChaining     = judgeChaining
)

// HeldTables is heldTables.
var HeldTables = heldTables

// Hold and Release are the runner's hold on a single server.
func Hold(ctx context.Context, conn driver.Conn, table string) error {
	r, err := newRunner(ctx, conn, Cluster{})
	if err != nil {
		return err
	}
	return r.hold(ctx, table)
}

func Release(ctx context.Context, conn driver.Conn, table string) error {
	r, err := newRunner(ctx, conn, Cluster{})
	if err != nil {
		return err
	}
	return r.release(ctx, table)
}

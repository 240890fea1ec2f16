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

// Hold and Release are the runner's hold of file version v on a single
// server; HoldColumn is its column.
func Hold(ctx context.Context, conn driver.Conn, table string, v uint32) error {
	r, err := newRunner(ctx, conn, Cluster{})
	if err != nil {
		return err
	}
	return r.hold(ctx, table, v)
}

func Release(ctx context.Context, conn driver.Conn, table string, v uint32) error {
	r, err := newRunner(ctx, conn, Cluster{})
	if err != nil {
		return err
	}
	return r.release(ctx, table, v)
}

var HoldColumn = holdColumn

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
	return HoldOn(ctx, conn, Cluster{}, nil, table, v)
}

func Release(ctx context.Context, conn driver.Conn, table string, v uint32) error {
	return ReleaseOn(ctx, conn, Cluster{}, nil, table, v)
}

var HoldColumn = holdColumn

type dialer = func(context.Context, string) (driver.Conn, error)

// HoldOn and ReleaseOn are Hold and Release on layout c, reaching other
// shards with dial.
func HoldOn(ctx context.Context, conn driver.Conn, c Cluster, dial dialer, table string, v uint32) error {
	return onRunner(ctx, conn, c, dial, func(r *runner) error { return r.hold(ctx, table, v) })
}

func ReleaseOn(ctx context.Context, conn driver.Conn, c Cluster, dial dialer, table string, v uint32) error {
	return onRunner(ctx, conn, c, dial, func(r *runner) error { return r.release(ctx, table, v) })
}

func onRunner(ctx context.Context, conn driver.Conn, c Cluster, dial dialer, f func(*runner) error) error {
	r, err := newRunner(ctx, conn, c)
	if err != nil {
		return err
	}
	r.dial = dial
	defer r.close()
	return f(r)
}

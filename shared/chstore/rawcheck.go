package chstore

import (
	"context"
	"fmt"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// uniquesFromRaw is the migration that rebuilds every visitor sketch from
// the raw clicks (0012): the uniq states it replaces cannot be converted.
const uniquesFromRaw = 12

// MigrateOptions are an operator's answers to what a migration asks.
type MigrateOptions struct {
	// AcceptLostUniques lets 0012 run although raw months were dropped
	// for retention: the visitors of those months are then missing from
	// unique clicks (checkRawComplete).
	AcceptLostUniques bool
	// DialServer connects to another server of a replicated cluster at
	// host:port (ServerDialer), for ALTERs sent shard by shard (shards.go).
	// Without it a run reaches only the shard of the server it is
	// connected to.
	DialServer func(ctx context.Context, addr string) (driver.Conn, error)
}

// checkRawComplete refuses 0012 where the raw clicks no longer hold every
// human click the counters have counted: months dropped for retention
// (docs/operations.md) would silently lose their visitors from unique
// clicks, all time and in ranges, while their clicks stay counted. The
// counters are read first, so clicks inserted meanwhile can only make the
// raw side larger.
func checkRawComplete(ctx context.Context, conn driver.Conn, o MigrateOptions) error {
	var counted, raw uint64
	if err := conn.QueryRow(ctx, `SELECT countIfMerge(humans) FROM click_totals`).Scan(&counted); err != nil {
		return fmt.Errorf("0012 check: count human clicks: %w", err)
	}
	if err := conn.QueryRow(ctx, `SELECT count() FROM `+click.RawSource+` WHERE class = 'human'`).Scan(&raw); err != nil {
		return fmt.Errorf("0012 check: count raw human clicks: %w", err)
	}
	if raw >= counted || o.AcceptLostUniques {
		return nil
	}
	return fmt.Errorf("ClickHouse 0012 rebuilds unique clicks from the raw clicks, but %d of the %d human clicks counted have no raw row any more "+
		"(raw months dropped for retention): their visitors would be missing from unique clicks from now on. "+
		"To upgrade anyway and accept that, run `admin migrate --accept-lost-unique-clicks` (docs/operations.md, \"Upgrading to ClickHouse 0012\")",
		counted-raw, counted)
}

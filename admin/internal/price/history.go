package price

import (
	"context"
	"fmt"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/pgstore"
)

// insertTicks names its columns: ClickHouse 18.16 rejects column-less batch
// inserts.
const insertTicks = "INSERT INTO price_ticks (symbol, ts, price, currency, source)"

// appendTicks writes ticks to price_ticks as one batch. The Decimal column
// takes the price's decimal text, so no float is involved.
func appendTicks(ctx context.Context, conn driver.Conn, ticks []pgstore.Quote, src Source) error {
	batch, err := conn.PrepareBatch(ctx, insertTicks)
	if err != nil {
		return fmt.Errorf("prepare price_ticks insert: %w", err)
	}
	defer batch.Close() //nolint:errcheck // no-op after Send
	for _, q := range ticks {
		if err := batch.Append(q.Symbol, q.QuotedAt, q.Price, q.Currency, string(src)); err != nil {
			return fmt.Errorf("append tick %s: %w", q.Symbol, err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("send %d price ticks: %w", len(ticks), err)
	}
	return nil
}

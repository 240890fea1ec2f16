package chstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// ErrSendFailed marks an insert that failed while or after its data was
// sent: ClickHouse may or may not have stored the rows. Errors without it
// happened before any row left the process, so the rows are certainly not
// stored.
var ErrSendFailed = errors.New("clickhouse insert outcome unknown")

// InsertBlock inserts b into the clicks table as one batch (one part on the
// server, atomic for the raw table). An error wrapping ErrSendFailed means
// the outcome is unknown.
func InsertBlock(ctx context.Context, conn driver.Conn, b *click.Block) error {
	if b.Len() == 0 {
		return nil
	}
	batch, err := conn.PrepareBatch(ctx, click.InsertSQL)
	if err != nil {
		return fmt.Errorf("prepare clicks insert: %w", err)
	}
	// Close releases the connection if anything below fails before Send; it
	// is a no-op after Send.
	defer batch.Close() //nolint:errcheck
	for i, col := range b.Columns() {
		if err := batch.Column(i).Append(col.Data); err != nil {
			return fmt.Errorf("append clicks column %s: %w", col.Name, err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("send %d clicks: %w: %w", b.Len(), ErrSendFailed, err)
	}
	return nil
}

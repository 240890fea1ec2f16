package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// countHumanClicks counts the human link clicks of owner (all owners when
// 0) in the raw clicks table: the rows the zero-loss check compares with
// the redirects the run received.
func countHumanClicks(ctx context.Context, conn driver.Conn, owner int64) (int64, error) {
	var n uint64
	var err error
	if owner > 0 {
		err = conn.QueryRow(ctx, `SELECT count() FROM `+click.RawSource+` WHERE kind = 'link' AND class = 'human' AND owner_id = ?`, uint64(owner)).Scan(&n)
	} else {
		err = conn.QueryRow(ctx, `SELECT count() FROM `+click.RawSource+` WHERE kind = 'link' AND class = 'human'`).Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("count clicks: %w", err)
	}
	return int64(n), nil
}

// settledCount polls the count until it has not changed for quiet (the
// pipeline flushed everything it holds) or until limit passes, and returns
// the last value and whether it settled.
func settledCount(ctx context.Context, conn driver.Conn, owner int64, quiet, limit time.Duration, want int64) (int64, bool, error) {
	deadline := time.Now().Add(limit)
	last, err := countHumanClicks(ctx, conn, owner)
	if err != nil {
		return 0, false, err
	}
	since := time.Now()
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return last, false, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
		n, err := countHumanClicks(ctx, conn, owner)
		if err != nil {
			return 0, false, err
		}
		if n != last {
			last, since = n, time.Now()
			continue
		}
		// Reaching the expected number ends the wait early; otherwise wait
		// for the pipeline to stay quiet (a flush interval or two).
		if want >= 0 && n == want || time.Since(since) >= quiet {
			return n, true, nil
		}
	}
	return last, false, nil
}

package chstore

import (
	"context"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// Counts is one target's all-time visits by class: the part of a Summary
// that costs no distinct-visitor state and no breakdown, for a page that
// shows nothing else of all time.
type Counts struct {
	Clicks, BotClicks, PreviewClicks, PrefetchClicks uint64
}

// countsSQL reads the counters of click_totals (0002), which the views of
// both raw tables fill; totalsSQL without the visitors.
const countsSQL = `SELECT countIfMerge(humans), countIfMerge(bots), countIfMerge(previews), countIfMerge(prefetches)
FROM click_totals WHERE kind = ? AND target_id = ?`

// ReadCounts returns the all-time Counts of the link or QR code id; zeros
// for an id nobody visited. A ClickHouse failure wraps link.ErrUnavailable.
func ReadCounts(ctx context.Context, conn driver.Conn, kind click.Kind, id int64) (Counts, error) {
	kn, err := KindName(kind)
	if err != nil {
		return Counts{}, err
	}
	var c Counts
	if err := conn.QueryRow(ctx, countsSQL, kn, uint64(id)).Scan(&c.Clicks, &c.BotClicks, &c.PreviewClicks, &c.PrefetchClicks); err != nil {
		return Counts{}, Unavailable("read click counts", err)
	}
	return c, nil
}

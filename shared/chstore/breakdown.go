package chstore

import (
	"context"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// The all-time breakdown of one link or QR code (top countries, referrers,
// browsers, operating systems and the referrer categories) since
// migration 0009: click_dims holds one row per combination of the five
// dimensions instead of one per (dimension, value), so its view writes
// one row per human click of a long-tail link instead of five.
//
// click_dims_total (0004) is frozen by 0009 but keeps every click counted
// before it; the read adds both, so breakdowns stay exact across the
// switch. Both tables are SummingMergeTrees whose rows collapse only in
// background merges: every read sums.

// dimsAllTimeFrom is the breakdown's source for dimsSelect and dimsTail
// (summary.go): the frozen per-(dimension, value) rows, and the
// combination rows unfolded into one (dimension, value) row each, with
// the names and categories click_dims_total used.
const dimsAllTimeFrom = `(SELECT dim, value, hits FROM click_dims_total
	WHERE kind = ? AND target_id = ? AND dim IN ('country', 'referrer', 'browser', 'os', 'category')
	UNION ALL
	SELECT d.1 AS dim, d.2 AS value, hits FROM click_dims
	ARRAY JOIN [('country', country), ('referrer', referrer_host), ('browser', browser), ('os', os),
		('category', toString(referrer_category))] AS d
	WHERE kind = ? AND target_id = ?)`

// ReadBreakdown returns the all-time breakdown of the human clicks on the
// link (click.KindLink) or QR code (click.KindQR) with id: what
// ReadSummary's Breakdown held when it read click_dims_total alone, for
// the same clicks. A ClickHouse failure wraps link.ErrUnavailable.
func ReadBreakdown(ctx context.Context, conn driver.Conn, kind click.Kind, id int64) (Breakdown, error) {
	kn, err := KindName(kind)
	if err != nil {
		return Breakdown{}, err
	}
	return breakdown(ctx, conn, dimsAllTimeFrom, kn, uint64(id), kn, uint64(id))
}

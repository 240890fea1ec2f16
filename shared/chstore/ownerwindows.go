package chstore

import (
	"context"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
)

// OwnerWindows are one owner's human clicks (and distinct visitors) over
// the dashboard home page's three windows, all ending now: since the start
// of today (UTC), of the 7th and of the 30th UTC day back (today
// included).
type OwnerWindows struct {
	Today, Week, Month                   uint64
	TodayUnique, WeekUnique, MonthUnique uint64
}

// ownerWindowsSQL reads one owner's days of click_owner_daily (0010)
// within the last 30: at most 30 rows, whatever the owner's traffic.
// Distinct visitors of a window merge the days' uniqHLL12 states, so a
// visitor seen on several days counts once (estimated: see 0010).
const ownerWindowsSQL = `SELECT
	countMergeIf(humans, day >= toDate(?)), countMergeIf(humans, day >= toDate(?)), countMerge(humans),
	uniqHLL12MergeIf(visitors, day >= toDate(?)), uniqHLL12MergeIf(visitors, day >= toDate(?)), uniqHLL12Merge(visitors)
FROM click_owner_daily
WHERE kind = ? AND owner_id = ? AND day >= toDate(?)`

// ReadOwnerWindows returns owner's OwnerWindows of kind as of now. A
// ClickHouse failure wraps link.ErrUnavailable.
func ReadOwnerWindows(ctx context.Context, conn driver.Conn, kind click.Kind, owner int64, now time.Time) (OwnerWindows, error) {
	kn, err := KindName(kind)
	if err != nil {
		return OwnerWindows{}, err
	}
	y, m, d := now.UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	day := func(t time.Time) string { return t.Format(time.DateOnly) }
	td, week, month := day(today), day(today.AddDate(0, 0, -6)), day(today.AddDate(0, 0, -29))
	var w OwnerWindows
	if err := conn.QueryRow(ctx, ownerWindowsSQL, td, week, td, week, kn, uint64(owner), month).Scan(
		&w.Today, &w.Week, &w.Month, &w.TodayUnique, &w.WeekUnique, &w.MonthUnique); err != nil {
		return OwnerWindows{}, Unavailable("read owner click windows", err)
	}
	return w, nil
}

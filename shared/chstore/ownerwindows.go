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

// ownerWindowsSQL reads the raw clicks of one owner within the last 30
// days. No aggregate table is keyed by owner and time (click_owner_totals,
// 0007, is all-time), so this is the one owner read of the raw table: the
// month partitions prune it to at most two months, and owner_id is not in
// the primary key, so it reads those months' clicks of every owner. A
// per-owner daily aggregate (a migration) is the fix when that shows up
// in the home page's time.
const ownerWindowsSQL = `SELECT
	countIf(ts >= toDateTime(?, 'UTC')), countIf(ts >= toDateTime(?, 'UTC')), count(),
	uniqIf(visitor, ts >= toDateTime(?, 'UTC')), uniqIf(visitor, ts >= toDateTime(?, 'UTC')), uniq(visitor)
FROM clicks
WHERE kind = ? AND owner_id = ? AND class = 'human' AND ts >= toDateTime(?, 'UTC')`

// ReadOwnerWindows returns owner's OwnerWindows of kind as of now. A
// ClickHouse failure wraps link.ErrUnavailable.
func ReadOwnerWindows(ctx context.Context, conn driver.Conn, kind click.Kind, owner int64, now time.Time) (OwnerWindows, error) {
	kn, err := KindName(kind)
	if err != nil {
		return OwnerWindows{}, err
	}
	y, m, d := now.UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	week, month := today.AddDate(0, 0, -6).Unix(), today.AddDate(0, 0, -29).Unix()
	var w OwnerWindows
	if err := conn.QueryRow(ctx, ownerWindowsSQL, today.Unix(), week, today.Unix(), week, kn, uint64(owner), month).Scan(
		&w.Today, &w.Week, &w.Month, &w.TodayUnique, &w.WeekUnique, &w.MonthUnique); err != nil {
		return OwnerWindows{}, Unavailable("read owner click windows", err)
	}
	return w, nil
}

package stats

import (
	"context"
	"time"

	"kurz/shared/chstore"
)

// liveAfter is how recently a pipeline must have written a heartbeat to
// count as running (it writes one per flush interval, default 5 s).
const liveAfter = 30

// freshnessSQL is the query documented in 0005_ingest_heartbeats.sql: the
// oldest watermark among pipelines seen in the last 30 s, plus the server's
// clock for the case that none is running.
const freshnessSQL = `SELECT count(), min(w), max(l), now() FROM (
	SELECT writer, argMax(watermark, at) AS w, argMax(lag_ms, at) AS l, max(at) AS last
	FROM ingest_heartbeats WHERE at > now() - 3600 GROUP BY writer
) WHERE last > now() - ?`

// Freshness reports up to when clicks are ingested. With running edges it
// is the oldest watermark any of them reports (every click captured before
// it is in ClickHouse) and the largest lag they report. With none running
// nothing is being captured, so everything is in: IngestedUntil is the
// server's current time and LagMs 0 (a stopped edge's spooled clicks are
// replayed, and counted, when it starts again).
func (s *Service) Freshness(ctx context.Context) (Freshness, error) {
	var (
		f       Freshness
		wm, now time.Time
		lag     uint32
	)
	if err := s.conn.QueryRow(ctx, freshnessSQL, liveAfter).Scan(&f.Writers, &wm, &lag, &now); err != nil {
		return Freshness{}, chstore.Unavailable("read ingest heartbeats", err)
	}
	if f.Writers == 0 {
		f.IngestedUntil = now.UTC()
		return f, nil
	}
	f.IngestedUntil = wm.UTC()
	f.LagMs = uint64(lag)
	return f, nil
}

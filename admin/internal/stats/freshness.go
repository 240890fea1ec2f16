package stats

import (
	"context"
	"sync"
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

// freshMaxAge is how old a Freshness RecentFreshness may hand out: the
// watermarks move once per edge flush (default every 5 s).
const freshMaxAge = time.Second

// freshCache is the last Freshness read, with when that read began.
type freshCache struct {
	mu   sync.Mutex
	now  func() time.Time // time.Now; tests move it
	read time.Time
	val  Freshness
}

func newFreshCache() *freshCache { return &freshCache{now: time.Now} }

// RecentFreshness is a Freshness whose read began less than freshMaxAge
// ago, reading anew when the kept one is older.
//
// Callers read it before the numbers it describes. A watermark read
// earlier stays true of every later read (a counted click stays counted),
// so a kept one may be handed out; one read beside or after the numbers
// could claim the clicks of an insert that landed between the two reads
// and that the numbers missed (an edge's watermark covers a batch until
// its insert has returned, or, spooled, until its replay's insert has).
// Keeping it also spares most pages one ClickHouse query. On a replicated
// cluster the heartbeats and the numbers may come from different
// replicas, and an asynchronous replica can lag behind either: there the
// promise holds only as far as the replicas are in step (docs/scaling.md).
func (s *Service) RecentFreshness(ctx context.Context) (Freshness, error) {
	c := s.fresh
	c.mu.Lock()
	began := c.now()
	if !c.read.IsZero() && began.Sub(c.read) < freshMaxAge {
		f := c.val
		c.mu.Unlock()
		return f, nil
	}
	c.mu.Unlock()
	f, err := s.Freshness(ctx)
	if err != nil {
		return Freshness{}, err
	}
	c.mu.Lock()
	if began.After(c.read) {
		c.read, c.val = began, f
	}
	c.mu.Unlock()
	return f, nil
}

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

package pgstore

import (
	"context"
	"fmt"
	"time"
)

// CountRequest adds one request to bucket's fixed window of the given length
// and returns the count so far and when the window ends. Windows are aligned
// to the database clock, so every admin process shares one count and one
// reset time.
func (s *Store) CountRequest(ctx context.Context, bucket string, window time.Duration) (count int, reset time.Time, err error) {
	secs := int64(window / time.Second)
	var start time.Time
	err = s.pool.QueryRow(ctx, `
		INSERT INTO rate_limits AS r (bucket, window_start, count)
		VALUES ($1, to_timestamp(floor(extract(epoch FROM now()) / $2) * $2), 1)
		ON CONFLICT (bucket) DO UPDATE SET
			count = CASE WHEN r.window_start = EXCLUDED.window_start THEN r.count + 1 ELSE 1 END,
			window_start = EXCLUDED.window_start
		RETURNING count, window_start`, bucket, secs).Scan(&count, &start)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("count request %q: %w", bucket, mapErr(err))
	}
	return count, start.Add(window).UTC(), nil
}

// PruneRateLimits deletes counters whose window started more than maxAge
// ago by the database clock (the clock that aligned the windows), so no
// process's clock skew ends a live window early.
func (s *Store) PruneRateLimits(ctx context.Context, maxAge time.Duration) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM rate_limits WHERE window_start < now() - make_interval(secs => $1)`,
		maxAge.Seconds())
	if err != nil {
		return 0, fmt.Errorf("prune rate limits: %w", mapErr(err))
	}
	return tag.RowsAffected(), nil
}

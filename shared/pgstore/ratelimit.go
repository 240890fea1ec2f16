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

// RefundRequest takes back one request counted in bucket's window that
// ends at reset (as CountRequest returned it), so a successful sign-in
// does not use up the budget meant for wrong passwords. A window that has
// ended since gives nothing back.
func (s *Store) RefundRequest(ctx context.Context, bucket string, reset time.Time, window time.Duration) error {
	_, err := s.pool.Exec(ctx, `UPDATE rate_limits SET count = count - 1
		WHERE bucket = $1 AND window_start = $2 AND count > 0`, bucket, reset.Add(-window))
	if err != nil {
		return fmt.Errorf("refund request %q: %w", bucket, mapErr(err))
	}
	return nil
}

// RequestCount is the number of requests counted in bucket's current
// window of the given length (0 when none), without counting one.
func (s *Store) RequestCount(ctx context.Context, bucket string, window time.Duration) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT coalesce((SELECT count FROM rate_limits WHERE bucket = $1
		AND window_start = to_timestamp(floor(extract(epoch FROM now()) / $2) * $2)), 0)`,
		bucket, int64(window/time.Second)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("request count %q: %w", bucket, mapErr(err))
	}
	return n, nil
}

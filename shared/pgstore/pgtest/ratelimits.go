package pgtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// RateLimitRow is the stored state of one rate-limit counter. Xmin is the
// row version's creating transaction: it changes with every write, so an
// unchanged Xmin proves that no request wrote the counter.
type RateLimitRow struct {
	Count       int
	WindowStart time.Time
	Xmin        uint32
}

// RateLimit reads the counter of bucket in the database at dsn; ok is
// false when there is none.
func RateLimit(t testing.TB, dsn, bucket string) (row RateLimitRow, ok bool) {
	t.Helper()
	withConn(t, dsn, func(ctx context.Context, c *pgx.Conn) error {
		err := c.QueryRow(ctx, `SELECT count, window_start, xmin::text::bigint FROM rate_limits WHERE bucket = $1`, bucket).
			Scan(&row.Count, &row.WindowStart, &row.Xmin)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		ok = err == nil
		return err
	})
	return row, ok
}

// RateLimitBuckets lists the stored buckets whose name starts with prefix.
func RateLimitBuckets(t testing.TB, dsn, prefix string) []string {
	t.Helper()
	var out []string
	withConn(t, dsn, func(ctx context.Context, c *pgx.Conn) error {
		rows, err := c.Query(ctx, `SELECT bucket FROM rate_limits WHERE starts_with(bucket, $1) ORDER BY bucket`, prefix)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return out
}

// AddRateLimit stores a counter directly, e.g. one whose window started
// long ago.
func AddRateLimit(t testing.TB, dsn, bucket string, windowStart time.Time, count int) {
	t.Helper()
	withConn(t, dsn, func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, `INSERT INTO rate_limits (bucket, window_start, count) VALUES ($1, $2, $3)`, bucket, windowStart, count)
		return err
	})
}

func withConn(t testing.TB, dsn string, fn func(ctx context.Context, c *pgx.Conn) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer c.Close(ctx)
	if err := fn(ctx, c); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
}

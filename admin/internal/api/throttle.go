package api

import (
	"context"
	"net/http"
	"net/netip"
	"time"
)

// Throttling for callers outside the API (the dashboard's sign-in): the
// same PostgreSQL counters as the API's rate limits, shared by every admin
// process, with the same memory of buckets over their limit.

// Attempt is one counted attempt.
type Attempt struct {
	// Wait is zero when the attempt may go ahead, else how long until the
	// bucket's window ends (nothing more was counted then).
	Wait   time.Duration
	bucket string
	reset  time.Time
	window time.Duration
}

// Throttle counts an attempt in bucket, allowing limit per window (limit
// 0: unlimited). window must not exceed an hour (rows are pruned then).
func (s *Server) Throttle(ctx context.Context, bucket string, limit int, window time.Duration) (Attempt, error) {
	if limit == 0 {
		return Attempt{}, nil
	}
	q, err := s.take(ctx, bucket, limit, window)
	if err != nil {
		return Attempt{}, err
	}
	a := Attempt{bucket: bucket, reset: q.reset, window: window}
	if q.over {
		s.rejected.Inc()
		a.Wait = time.Duration(retryAfter(q.reset, window, time.Now())) * time.Second
	}
	return a, nil
}

// Refund gives back an attempt that went ahead and succeeded, so only
// failures use up a budget (a right password is no guess). An attempt of
// a window that has ended, or that was refused, gives nothing back.
func (s *Server) Refund(ctx context.Context, a Attempt) error {
	if a.bucket == "" || a.Wait > 0 {
		return nil
	}
	return s.store.RefundRequest(ctx, a.bucket, a.reset, a.window)
}

// ClientIP is the request's client address as the API's limits see it:
// X-Forwarded-For is believed from KURZ_TRUSTED_PROXIES peers only.
func (s *Server) ClientIP(r *http.Request) netip.Addr { return s.clientIP(r) }

// ClientKey is the part of a client address per-client limits count: an
// IPv4 address, or an IPv6 address's /64.
func ClientKey(ip netip.Addr) string { return clientKey(ip) }

package api

import (
	"context"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The counters live in PostgreSQL so that every admin process enforces one
// limit per bucket. Two things keep that store cheap under a flood:
//
//   - A request already over its limit costs no write. The process that
//     counts a bucket past its limit remembers the bucket until its window
//     resets (overUntil) and answers the bucket's next requests 429 from
//     memory. The reset comes from the database clock and the memory runs
//     on this process's clock, so it lasts at most one window: clock skew
//     can end it early (one more write), never stretch a 429. With P admin processes at most P requests per bucket and
//     window get past the limit into PostgreSQL: each process learns the
//     state from one write of its own.
//   - The table holds only live windows. Counting prunes rows whose window
//     started over maxWindow ago, at most once per pruneEvery per process
//     and off the request's path, so the table is bounded by the buckets
//     seen in the last hour whatever the process's uptime.

const (
	// maxWindow is the longest window any limit uses (registration's
	// hour); rows older than that are dead.
	maxWindow = time.Hour
	// pruneEvery spaces the prunes of one process.
	pruneEvery = 5 * time.Minute
	// pruneTimeout bounds one prune.
	pruneTimeout = 30 * time.Second
	// maxOverLimit bounds the remembered buckets; past it a bucket is
	// simply counted in PostgreSQL again, as without the memory.
	maxOverLimit = 1 << 16
)

// rateLimits is the server's in-process side of rate limiting.
type rateLimits struct {
	mu   sync.Mutex
	over map[string]time.Time // bucket → when to count it again (local clock)

	pruning  atomic.Bool
	prunedAt atomic.Int64 // Unix nanoseconds of the last prune's start
}

func newRateLimits() *rateLimits {
	return &rateLimits{over: map[string]time.Time{}}
}

// overUntil reports whether bucket is known to be over its limit at now,
// and until when.
func (l *rateLimits) overUntil(bucket string, now time.Time) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	reset, ok := l.over[bucket]
	if ok && !now.Before(reset) {
		delete(l.over, bucket)
		return time.Time{}, false
	}
	return reset, ok
}

// remember records that bucket is over its limit until reset (database
// clock) in a window of the given length, as a local deadline no further
// than one window from now.
func (l *rateLimits) remember(bucket string, reset time.Time, window time.Duration, now time.Time) {
	until := now.Add(min(reset.Sub(now), window))
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.over) >= maxOverLimit {
		for b, r := range l.over {
			if !now.Before(r) {
				delete(l.over, b)
			}
		}
		if len(l.over) >= maxOverLimit {
			return
		}
	}
	l.over[bucket] = until
}

// maybePrune starts a prune of dead windows when none ran for pruneEvery
// in this process. It runs in the background: the request that happens to
// trigger it does not wait.
func (s *Server) maybePrune(ctx context.Context) {
	l := s.limits
	now := time.Now().UnixNano()
	if now-l.prunedAt.Load() < int64(pruneEvery) || !l.pruning.CompareAndSwap(false, true) {
		return
	}
	l.prunedAt.Store(now)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pruneTimeout)
	go func() {
		defer l.pruning.Store(false)
		defer cancel()
		if _, err := s.store.PruneRateLimits(ctx, maxWindow); err != nil {
			s.log.Warn("prune rate limits", "err", err)
		}
	}()
}

// tooMany writes the 429 of a bucket over limit whose window ends at reset.
func (s *Server) tooMany(w http.ResponseWriter, r *http.Request, limit int, window time.Duration, reset time.Time) {
	s.rejected.Inc()
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	e := limitError(limit, window, reset)
	h.Set("Retry-After", strconv.Itoa(e.RetryAfter))
	writeError(w, r, s.log, e)
}

// limitError is the 429 of a bucket over limit whose window ends at reset.
func limitError(limit int, window time.Duration, reset time.Time) *Error {
	wait := retryAfter(reset, window, time.Now())
	e := Errorf(http.StatusTooManyRequests, "rate limit exceeded: %d requests per %s; retry in %d s", limit, windowName(window), wait)
	e.RetryAfter = wait
	return e
}

// retryAfter is the whole seconds from now to reset, from 1 to one window
// (reset is on the database clock: skew must not promise a longer wait).
func retryAfter(reset time.Time, window time.Duration, now time.Time) int {
	secs := int(reset.Sub(now).Seconds() + 0.999)
	return min(max(secs, 1), int(window/time.Second))
}

// clientKey is the part of a client address that per-IP limits count: an
// IPv4 address itself, an IPv6 address by its /64, the block one
// subscriber usually gets (cycling through one's own addresses must not
// multiply a limit). IPv4-mapped IPv6 addresses count as IPv4.
func clientKey(ip netip.Addr) string {
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64) // cannot fail for IPv6; drops any zone
		return p.String()
	}
	return ip.String()
}

package api

import (
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"testing"
	"time"

	"kurz/shared/config"
	"kurz/shared/pgstore/pgtest"
)

// keyless sends GET /api/account with a wrong key from the client address
// ip (via a trusted proxy's X-Forwarded-For).
func (e *testEnv) keyless(ip string) response {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.http.URL+"/api/account", nil)
	req.Header.Set("Authorization", "Bearer kurz_guess")
	if ip != "" {
		req.Header.Set("X-Forwarded-For", ip)
	}
	return e.send(req)
}

func behindProxy(limit int) func(*config.Config) {
	return func(c *config.Config) {
		c.AnonRateLimit = limit
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	}
}

// One IPv6 subscriber gets a /64 and can use any address in it, so the
// keyless limit counts the /64; IPv4 (also written IPv4-mapped) counts
// the address.
func TestAnonLimitCountsIPv6By64(t *testing.T) {
	e := newEnv(t, behindProxy(3))
	awayFromWindowEdge()
	for _, ip := range []string{"2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff:ffff:ffff:fffe"} {
		e.keyless(ip).wantStatus(t, http.StatusUnauthorized)
	}
	e.keyless("2001:db8:1:2::99").wantStatus(t, http.StatusTooManyRequests)
	e.keyless("2001:db8:1:3::1").wantStatus(t, http.StatusUnauthorized) // the next /64
	for range 3 {
		e.keyless("::ffff:192.0.2.1").wantStatus(t, http.StatusUnauthorized)
	}
	e.keyless("192.0.2.1").wantStatus(t, http.StatusTooManyRequests)
	e.keyless("::ffff:192.0.2.2").wantStatus(t, http.StatusUnauthorized) // not one "::/64" for all of IPv4
	want := []string{"anon:192.0.2.1", "anon:192.0.2.2", "anon:2001:db8:1:2::/64", "anon:2001:db8:1:3::/64"}
	if got := pgtest.RateLimitBuckets(t, e.dsn, "anon:"); !slices.Equal(got, want) {
		t.Errorf("buckets %q, want %q", got, want)
	}
}

// A request already over its limit is answered from memory: the counter
// row is not written again (same count, same row version), in this
// process or, after one request that learns the state, in another.
func TestOverLimitCostsNoWrite(t *testing.T) {
	a := newEnv(t, behindProxy(2))
	awayFromWindowEdge()
	limit := 1
	uid, key := a.user("alice", func(o *userOpt) { o.rateLimit = &limit })
	a.do("GET", "/api/account", key, nil).wantStatus(t, http.StatusOK)
	for _, c := range []struct {
		bucket string
		send   func(e *testEnv) response
	}{
		{"anon:192.0.2.7", func(e *testEnv) response { return e.keyless("192.0.2.7") }},
		{"api:" + strconv.FormatInt(uid, 10), func(e *testEnv) response { return e.do("GET", "/api/account", key, nil) }},
	} {
		t.Run(c.bucket, func(t *testing.T) {
			for c.send(a).Status != http.StatusTooManyRequests {
			}
			first, ok := pgtest.RateLimit(t, a.dsn, c.bucket)
			if !ok {
				t.Fatalf("no counter %s", c.bucket)
			}
			for range 5 {
				r := c.send(a).wantStatus(t, http.StatusTooManyRequests)
				reset, _ := strconv.ParseInt(r.Header.Get("X-RateLimit-Reset"), 10, 64)
				if r.Header.Get("Retry-After") == "" || r.Header.Get("X-RateLimit-Remaining") != "0" ||
					reset != first.WindowStart.Add(time.Minute).Unix() {
					t.Fatalf("429 headers %v (window %v)", r.Header, first.WindowStart)
				}
			}
			if got, _ := pgtest.RateLimit(t, a.dsn, c.bucket); got != first {
				t.Fatalf("over-limit requests wrote the counter: %+v, then %+v", first, got)
			}
			b := startEnv(t, a.store, a.dsn, a.cfg) // a second admin process
			c.send(b).wantStatus(t, http.StatusTooManyRequests)
			learnt, _ := pgtest.RateLimit(t, a.dsn, c.bucket)
			for range 3 {
				c.send(b).wantStatus(t, http.StatusTooManyRequests)
			}
			if got, _ := pgtest.RateLimit(t, a.dsn, c.bucket); got != learnt || got.Count > first.Count+1 {
				t.Fatalf("second process wrote the counter: %+v, %+v, then %+v", first, learnt, got)
			}
		})
	}
}

// Counters of windows long gone are deleted as the server counts, so the
// table holds only the buckets of the last hour however many clients
// came before.
func TestRateLimitsPruned(t *testing.T) {
	e := newEnv(t)
	old := time.Now().Add(-2 * time.Hour).Truncate(time.Minute)
	for _, b := range []string{"anon:203.0.113.1", "anon:2001:db8::/64", "register:203.0.113.2", "api:99"} {
		pgtest.AddRateLimit(t, e.dsn, b, old, 3)
	}
	// An hour-long registration window may have started this long ago.
	pgtest.AddRateLimit(t, e.dsn, "register:203.0.113.3", time.Now().Add(-50*time.Minute), 2)
	e.keyless("").wantStatus(t, http.StatusUnauthorized)
	deadline := time.Now().Add(5 * time.Second)
	want := []string{"anon:127.0.0.1", "register:203.0.113.3"}
	for {
		got := append(pgtest.RateLimitBuckets(t, e.dsn, "anon:"), pgtest.RateLimitBuckets(t, e.dsn, "register:")...)
		got = append(got, pgtest.RateLimitBuckets(t, e.dsn, "api:")...)
		if slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("buckets %q, want %q: old windows were not deleted", got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

package api

import (
	"testing"
	"time"
)

// The database clock sets a window's reset; this process's clock decides
// when its memory of an over-limit bucket ends. Skew between the two must
// not keep answering 429 past one window.
func TestOverLimitMemoIgnoresClockSkew(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name      string
		reset     time.Time // as the database reports it
		overAt    time.Duration
		expiredAt time.Duration
	}{
		{"clocks agree", now.Add(20 * time.Second), 19 * time.Second, 20 * time.Second},
		{"database 2 h ahead", now.Add(2 * time.Hour), 59 * time.Second, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newRateLimits()
			l.remember("b", tc.reset, time.Minute, now)
			if _, over := l.overUntil("b", now.Add(tc.overAt)); !over {
				t.Errorf("not over at +%s", tc.overAt)
			}
			if until, over := l.overUntil("b", now.Add(tc.expiredAt)); over {
				t.Errorf("still over at +%s (until %s)", tc.expiredAt, until.Sub(now))
			}
		})
	}
}

func TestRetryAfterBoundedByWindow(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		reset time.Time
		want  int
	}{
		{now.Add(10*time.Second + time.Millisecond), 11},
		{now.Add(2 * time.Hour), 60}, // database clock ahead
		{now.Add(-time.Hour), 1},     // database clock behind
	} {
		if got := retryAfter(tc.reset, time.Minute, now); got != tc.want {
			t.Errorf("retryAfter(now%+v) = %d, want %d", tc.reset.Sub(now), got, tc.want)
		}
	}
}

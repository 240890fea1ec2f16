package main

import (
	"context"
	"testing"
	"time"

	"kurz/shared/chstore/chtest"
)

// TestWaitMerges: on a database where no merge runs, the wait ends settled
// once the quiet stretch has passed, not before; a limit shorter than the
// stretch ends it unsettled at the limit; a stretch of 0 ends it at the
// first poll.
func TestWaitMerges(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ch, _ := chtest.New(t)
	tests := []struct {
		quiet, limit time.Duration
		settled      bool
		least, most  time.Duration
	}{
		{600 * time.Millisecond, 5 * time.Second, true, 600 * time.Millisecond, 3 * time.Second},
		{5 * time.Second, 500 * time.Millisecond, false, 500 * time.Millisecond, 3 * time.Second},
		{0, 5 * time.Second, true, 0, time.Second},
	}
	for _, tt := range tests {
		start := time.Now()
		settled, err := waitMerges(ctx, ch, tt.quiet, tt.limit)
		took := time.Since(start)
		if err != nil || settled != tt.settled || took < tt.least || took > tt.most {
			t.Errorf("quiet %v, limit %v: settled %v (%v) after %v, want %v within %v..%v", tt.quiet, tt.limit, settled, err, took, tt.settled, tt.least, tt.most)
		}
	}
	for _, tt := range []struct {
		w    settleWait
		want string
	}{
		{settleWait{Waited: true, Settled: true, Secs: 14.5}, "no poll saw a merge from 12.5 s after the insert on, for 2 s"},
		{settleWait{Waited: true, Settled: true, Secs: 1}, "no poll saw a merge from 0.0 s after the insert on, for 2 s"},
		{settleWait{Waited: true, Secs: 90.2}, "merges still ran 90 s after the insert, when the wait ended"},
		{settleWait{}, "no wait for merges"},
	} {
		if got := tt.w.note("the insert"); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.w, got, tt.want)
		}
	}
	if w, err := settleMerges(ctx, ch, 0); err != nil || w.Waited {
		t.Errorf("--settle 0 waited: %+v, %v", w, err)
	}
}

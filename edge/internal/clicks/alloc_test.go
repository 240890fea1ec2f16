//go:build !race

package clicks

import (
	"testing"

	"kurz/shared/click"
)

// TestTryPushAllocatesNothing proves the request-path hand-off is
// allocation-free on each of its paths: queue, overflow, drop.
func TestTryPushAllocatesNothing(t *testing.T) {
	tests := []struct {
		name            string
		queue, overflow int
		want            func(*Pipeline) bool
	}{
		{"queue", 1, 0, func(p *Pipeline) bool { return len(p.queue) == 1 }},
		{"overflow", 0, 1, func(p *Pipeline) bool { return len(p.overflow) == 1 }},
		{"drop", 0, 0, func(p *Pipeline) bool { return p.m.dropped.Load() > 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Pipeline{queue: make(chan click.Hit, tt.queue), overflow: make(chan click.Hit, tt.overflow)}
			h := testHit(3)
			drain := func() {
				select {
				case <-p.queue:
				default:
				}
				select {
				case <-p.overflow:
				default:
				}
			}
			allocs := testing.AllocsPerRun(1000, func() {
				p.TryPush(&h)
				if !tt.want(p) {
					t.Fatal("hit took another path")
				}
				drain()
			})
			if allocs != 0 {
				t.Fatalf("TryPush allocates %.1f times per call", allocs)
			}
		})
	}
}

package main

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestRowsPerFlush(t *testing.T) {
	tests := []struct {
		rate    float64
		flush   time.Duration
		workers int
		want    int
	}{
		{30_000, time.Second, 2, 15_000}, // the edge's real flow at 30k clicks/s
		{30_000, 2 * time.Second, 2, 30_000},
		{30_000, 500 * time.Millisecond, 1, 15_000},
		{1, time.Second, 4, 1}, // never an empty insert
	}
	for _, tc := range tests {
		if got := rowsPerFlush(tc.rate, tc.flush, tc.workers); got != tc.want {
			t.Errorf("rowsPerFlush(%g, %v, %d) = %d, want %d", tc.rate, tc.flush, tc.workers, got, tc.want)
		}
	}
}

func TestNewLinkPickerRejects(t *testing.T) {
	for _, tc := range []struct {
		dist string
		s    float64
	}{{"zipf", 1}, {"zipf", 0.5}, {"pareto", 1.1}, {"", 1.1}} {
		if _, err := newLinkPicker(tc.dist, 10, tc.s); err == nil {
			t.Errorf("newLinkPicker(%q, s=%g) accepted", tc.dist, tc.s)
		}
	}
}

// TestIngestWorkerLinks: every distribution stays within 1..links; cycle
// is round robin, uniform reaches every link about equally, zipf gives
// its most popular link far more than an equal share.
func TestIngestWorkerLinks(t *testing.T) {
	const links, draws = 1000, 200_000
	tests := []struct {
		dist               string
		minTop, maxTop     float64 // share of draws of the most clicked link
		minLinksWithClicks int
	}{
		{"cycle", 0, 0.0011, links},
		{"uniform", 0, 0.002, links},
		{"zipf", 0.05, 1, 100},
	}
	for _, tc := range tests {
		t.Run(tc.dist, func(t *testing.T) {
			p, err := newLinkPicker(tc.dist, links, 1.1)
			if err != nil {
				t.Fatal(err)
			}
			w := ingestWorker{flow: ingestFlow{links: p}, rng: rand.New(rand.NewPCG(1, 2))}
			if tc.dist == "zipf" {
				w.zipf = rand.NewZipf(w.rng, p.s, 1, uint64(p.n-1))
			}
			counts := make(map[int64]int)
			for i := range int64(draws) {
				id := w.link(i)
				if id < 1 || id > links {
					t.Fatalf("link %d out of 1..%d", id, links)
				}
				if tc.dist == "cycle" && id != 1+i%links {
					t.Fatalf("click %d: link %d, want round robin %d", i, id, 1+i%links)
				}
				counts[id]++
			}
			top := 0
			for _, c := range counts {
				top = max(top, c)
			}
			share := float64(top) / draws
			if share < tc.minTop || share > tc.maxTop || len(counts) < tc.minLinksWithClicks {
				t.Fatalf("top link share %.4f (want %g..%g), %d links clicked (want >= %d)", share, tc.minTop, tc.maxTop, len(counts), tc.minLinksWithClicks)
			}
		})
	}
}

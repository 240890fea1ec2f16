package catalog

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// The set agrees with a map model through adds, removes, compactions and a
// rebuild whose journal holds changes the scan did or did not see.
func TestKeySetMatchesModel(t *testing.T) {
	const keyRange = 20000
	rng := rand.New(rand.NewPCG(1, 2))
	model := map[uint64]bool{}
	var s keySet
	check := func(when string) {
		t.Helper()
		for h := range uint64(keyRange) {
			present, known := s.lookup(h)
			if !known || present != model[h] {
				t.Fatalf("%s: key %d: present %v known %v, want %v", when, h, present, known, model[h])
			}
		}
	}
	build := func(during func()) {
		_, gen := s.begin(context.Background())
		if !s.attempt(gen) {
			t.Fatal("attempt refused")
		}
		var scanned []uint64 // the snapshot: the model before during's changes
		for h, ok := range model {
			if ok {
				scanned = append(scanned, h)
			}
		}
		during()
		slices.Sort(scanned)
		if s.finish(gen, scanned) {
			t.Fatal("finish asked for another scan")
		}
	}
	change := func(n int) {
		for range n {
			h, add := rng.Uint64N(keyRange), rng.IntN(2) == 0
			s.set(h, add)
			model[h] = add
		}
	}
	build(func() {})
	check("empty")
	change(60000) // several compactions (minCompact 4096)
	check("after changes")
	if len(s.base) == 0 {
		t.Fatal("the change maps were never merged into the base")
	}
	build(func() {
		if _, known := s.lookup(1); known {
			t.Fatal("a set being built answered")
		}
		change(5000) // journaled, replayed over a scan that did not see them
	})
	check("after a rebuild with a journal")
	s.invalidate()
	if _, known := s.lookup(1); known {
		t.Fatal("an invalidated set answered")
	}
	change(10) // a stale set ignores changes; the next build scans them
	build(func() {})
	check("after invalidate and rebuild")
}

// A build superseded by a newer one, or invalidated meanwhile, installs
// nothing; an overflowing journal asks for another scan.
func TestKeySetBuildGenerations(t *testing.T) {
	var s keySet
	_, old := s.begin(context.Background())
	s.attempt(old)
	ctx, cur := s.begin(context.Background())
	if s.attempt(old) {
		t.Fatal("a superseded build may still scan")
	}
	s.finish(old, []uint64{1})
	if _, known := s.lookup(1); known {
		t.Fatal("a superseded build was installed")
	}
	s.attempt(cur)
	for h := range uint64(maxJournal + 1) {
		s.set(h, true)
	}
	if !s.finish(cur, nil) {
		t.Fatal("an overflowed journal was trusted")
	}
	s.attempt(cur)
	s.set(7, true)
	if s.finish(cur, []uint64{1, 2}) {
		t.Fatal("a second scan was refused")
	}
	for _, h := range []uint64{1, 2, 7} {
		if p, _ := s.lookup(h); !p {
			t.Fatalf("key %d missing", h)
		}
	}
	s.invalidate()
	if ctx.Err() == nil {
		t.Fatal("invalidate did not cancel the build")
	}
}

// Memory per key of a million-link set: the number in docs and bench.
func TestKeySetBytesPerKey(t *testing.T) {
	const n = 1_000_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var s keySet
	_, gen := s.begin(context.Background())
	s.attempt(gen)
	rng := rand.New(rand.NewPCG(3, 4))
	hashes, err := collect(context.Background(), func(_ context.Context, add func(uint64)) error {
		for range n {
			add(rng.Uint64())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.finish(gen, hashes)
	runtime.GC()
	runtime.ReadMemStats(&after)
	perKey := float64(after.HeapAlloc-before.HeapAlloc) / n
	t.Logf("%d keys: %.2f bytes per key of live heap", n, perKey)
	if perKey > 9 {
		t.Fatalf("%.2f bytes per key, want <= 9", perKey)
	}
	runtime.KeepAlive(&s)
}

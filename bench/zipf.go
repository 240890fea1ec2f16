package main

import "math/rand/v2"

// zipfPicker draws link indexes so that the link of rank k is requested
// with probability proportional to 1/(v+k)^s: a few links take most of
// the traffic, a long tail is requested rarely (real short-link traffic).
// perm maps ranks to indexes so that popularity is independent of the
// alias file's order; it is shared read-only by all workers.
type zipfPicker struct {
	z    *rand.Zipf
	perm []uint32
}

// newZipfPicker needs s > 1 and v >= 1 (math/rand/v2's domain).
func newZipfPicker(r *rand.Rand, s, v float64, perm []uint32) *zipfPicker {
	return &zipfPicker{z: rand.NewZipf(r, s, v, uint64(len(perm)-1)), perm: perm}
}

func (p *zipfPicker) next() int { return int(p.perm[p.z.Uint64()]) }

// rankPermutation returns a seeded random permutation of 0..n-1.
func rankPermutation(n int, seed uint64) []uint32 {
	r := rand.New(rand.NewPCG(seed, 0x7a697066))
	perm := make([]uint32, n)
	for i := range perm {
		perm[i] = uint32(i)
	}
	r.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	return perm
}

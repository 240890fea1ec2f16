package catalog

import (
	"sync/atomic"
	"time"
)

// The rule every cache of the catalog keeps: a load never outlives an
// invalidation. A load reads the database, then stores what it read; a
// change notified in between must win, or the row read before it stays
// cached (found entries have no TTL). versions is the one implementation
// of that rule, shared by the link cache, the warm-up and the object
// caches (campaigns, QR codes); they differ only in what they do with a
// result that lost (serve it uncached, skip it, restart the warm-up).

// stripes is the number of per-key generation counters of one cache.
const stripes = 256

// versions is the invalidation state of one cache: a global generation
// that Clear bumps, and per-key generations (each key hashes to one of
// stripes counters) that an invalidation of the key bumps.
type versions struct {
	global  atomic.Uint64
	stripes [stripes]atomic.Uint64
	// When the key's stripe, and the whole cache (clear), were last
	// invalidated, on the process clock (clock): a load may read a
	// lagging replica only if the replica has replayed everything
	// committed before then (reads.go).
	touched [stripes]atomic.Int64
	cleared atomic.Int64
	// beforeSet, when set (tests only), runs in store between the check
	// and the Set: it lets a test land an invalidation exactly there.
	beforeSet func()
}

// version is the state of one key's generations when its load began.
type version struct {
	key            uint64
	global, stripe uint64
}

// at returns key's version now, to check a load of key against.
func (v *versions) at(key uint64) version {
	return version{key: key, global: v.global.Load(), stripe: v.stripes[key%stripes].Load()}
}

// snapshot is every generation at one moment: for a load that learns its
// keys only from what it reads (the warm-up, a campaign by slug).
type snapshot struct {
	global  uint64
	stripes [stripes]uint64
}

func (v *versions) snapshot() *snapshot {
	s := &snapshot{global: v.global.Load()}
	for i := range v.stripes {
		s.stripes[i] = v.stripes[i].Load()
	}
	return s
}

// at is key's version as of the snapshot.
func (s *snapshot) at(key uint64) version {
	return version{key: key, global: s.global, stripe: s.stripes[key%stripes]}
}

// invalidate makes every load of key that began before it lose.
func (v *versions) invalidate(key uint64) {
	v.stripes[key%stripes].Add(1)
	raise(&v.touched[key%stripes], clock())
}

// clear makes every load that began before it lose.
func (v *versions) clear() {
	v.global.Add(1)
	raise(&v.cleared, clock())
}

// changedAt is when key (or every key) was last invalidated, on clock.
func (v *versions) changedAt(key uint64) int64 {
	return max(v.touched[key%stripes].Load(), v.cleared.Load())
}

// anyChangeAt is when any key was last invalidated, on clock: for loads
// that learn their version key only from what they read (objects).
func (v *versions) anyChangeAt() int64 {
	t := v.cleared.Load()
	for i := range v.touched {
		t = max(t, v.touched[i].Load())
	}
	return t
}

// clockStart is the origin of clock; set once, never written again.
var clockStart = time.Now()

// clock is the process's monotonic clock in nanoseconds, > 0.
func clock() int64 { return int64(time.Since(clockStart)) + 1 }

// raise stores t in a unless a already holds a later time.
func raise(a *atomic.Int64, t int64) {
	for {
		old := a.Load()
		if old >= t || a.CompareAndSwap(old, t) {
			return
		}
	}
}

// clearedSince reports whether a clear happened since s was taken.
func (v *versions) clearedSince(s *snapshot) bool { return v.global.Load() != s.global }

// fate is what became of a loaded value.
type fate uint8

const (
	stored  fate = iota // cached
	stale               // its key was invalidated since the load began: not cached
	cleared             // the cache was cleared since the load began: not cached
	refused             // the cache did not take it
)

// check reports whether a load of at may still be stored.
func (v *versions) check(at version) fate {
	switch {
	case v.global.Load() != at.global:
		return cleared
	case v.stripes[at.key%stripes].Load() != at.stripe:
		return stale
	}
	return stored
}

// store caches a value loaded since at: set runs only if nothing
// invalidated the key since at, and del undoes it if an invalidation
// landed between that check and the Set. The second check is needed
// because ristretto applies a Set asynchronously, after a Del issued
// before it: the invalidation's Del would come first and the stale Set
// would stay. The Del issued here is queued behind the Set, so it wins.
func (v *versions) store(at version, set func() bool, del func()) fate {
	if f := v.check(at); f != stored {
		return f
	}
	if v.beforeSet != nil {
		v.beforeSet()
	}
	if !set() {
		return refused
	}
	if f := v.check(at); f != stored {
		del()
		return f
	}
	return stored
}

package api

import (
	"sync"
	"time"
)

// The framing check fetches user-chosen URLs, so without bounds one API
// call (up to maxFrameChecks destinations, each HEAD then GET with
// redirects) times the callers' request rate would make the server hammer
// third-party hosts. frameChecks bounds it server-wide: a fixed number of
// destination checks in flight, never waited for (a write request must not
// queue behind other users' slow destinations), and a short-lived memory
// of answers, so saving the same link again, or many links to one URL,
// sends no new request.
//
// The memory is shared by all accounts: a site's headers are public, and
// sharing is what keeps many accounts from multiplying the requests to
// one victim URL.
const (
	// frameCheckSlots is how many destinations may be checked at once in
	// the whole server.
	frameCheckSlots = 16
	// frameCacheSize bounds the remembered answers: under 20 MB even if
	// every key held a 4096-byte URL (a key is the URL plus an origin).
	frameCacheSize = 4096
	// frameAnswerTTL is how long an answer (allowed or refused) is reused:
	// long enough to absorb repeats, short enough that a site that changes
	// its headers is seen again soon.
	frameAnswerTTL = 5 * time.Minute
	// frameFailureTTL is how long "could not be checked" is reused: a
	// black-holed host would otherwise hold a slot for the whole timeout
	// on every save.
	frameFailureTTL = 30 * time.Second
)

// frameChecks is the server-wide state of the framing check: its slots
// and its memory. The zero value is not usable; see newFrameChecks.
type frameChecks struct {
	slots chan struct{}
	now   func() time.Time // tests move the clock

	mu      sync.Mutex
	size    int
	entries map[string]frameEntry
}

type frameEntry struct {
	v       frameVerdict
	expires time.Time
}

// newFrameChecks allows slots destination checks at once.
func newFrameChecks(slots int) *frameChecks {
	return &frameChecks{
		slots:   make(chan struct{}, slots),
		now:     time.Now,
		size:    frameCacheSize,
		entries: map[string]frameEntry{},
	}
}

// tryAcquire takes a slot if one is free; it never waits.
func (c *frameChecks) tryAcquire() bool {
	select {
	case c.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

func (c *frameChecks) release() { <-c.slots }

// get returns the remembered answer for key, if it is still fresh.
func (c *frameChecks) get(key string) (frameVerdict, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return frameVerdict{}, false
	}
	if !c.now().Before(e.expires) {
		delete(c.entries, key)
		return frameVerdict{}, false
	}
	return e.v, true
}

// put remembers v for key during ttl. When the memory is full it drops
// the expired answers, then arbitrary ones: a dropped answer only costs
// one more check.
func (c *frameChecks) put(key string, v frameVerdict, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.size {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
		for k := range c.entries {
			if len(c.entries) < c.size {
				break
			}
			delete(c.entries, k)
		}
	}
	c.entries[key] = frameEntry{v: v, expires: now.Add(ttl)}
}

package server

import (
	"math"
	"net/netip"
	"runtime"
	"sync"
	"time"

	"kurz/shared/secret"
)

// Limits on password attempts (all per edge process: no shared state on
// the redirect path, so N edges allow N times as much).
//
// Before its argon2 check, an attempt on link L from client C must pass, in
// this order:
//   - C's own budget on L: PasswordAttempts per PasswordWindow, C being the
//     IPv4 address or the IPv6 /64 (one subscriber usually holds a whole
//     /64; counting per /128 would give them 2^64 fresh budgets);
//   - C's source share of L: a third of PasswordLinkAttempts, the source
//     being the IPv4 address or the IPv6 /48 (one site's allocation,
//     65 536 /64s). Without it one IPv6 site could fill L's cap alone, from
//     its many /64s, and lock everyone out; with it that takes at least three
//     sources (six IPv4 addresses at the default 5 per client);
//   - L's cap: PasswordLinkAttempts per PasswordWindow across all clients.
//     Once reached, every client gets 429 until the window ends, right
//     password or not: the cap bounds a distributed guesser, at the price
//     that a big enough one can close the link for a minute;
//   - the edge's argon2 budget (argonBudget): when spent, 503 at once.
//
// Every counter counts the attempt before the check, so parallel guesses
// cannot all pass while the counts are still 0. An attempt refused by a
// later step, or never checked (no semaphore slot), is given back to the
// earlier ones, and so is a right answer: only wrong passwords are counted,
// and a right one is answered as soon as its check ends.

const (
	// argonCPUShare is the share of GOMAXPROCS password checks may use on
	// average; PasswordWorkers bounds the instantaneous share.
	argonCPUShare = 0.25
	// argonBurst is how long an idle edge saves its argon2 budget for: a
	// few people unlocking links at once are not refused.
	argonBurst = 2 * time.Second
	// argonCostFallback is used when the calibration cannot run.
	argonCostFallback = 50 * time.Millisecond
	limiterKeys       = 100_000
)

// pwGuard holds the attempt counters and the argon2 budget.
type pwGuard struct {
	client *limiter // per (IPv4 address or IPv6 /64, link)
	source *limiter // per (IPv4 address or IPv6 /48, link): a source's share of the link's cap
	link   *limiter // per link, all clients
	budget *argonBudget
}

// pwTicket names the counters an admitted attempt was counted in.
type pwTicket struct{ client, source, link limiterKey }

func newPWGuard(cfg Config) *pwGuard {
	linkCap := cfg.PasswordLinkAttempts
	if linkCap <= 0 {
		linkCap = 30
	}
	return &pwGuard{
		client: newLimiter(cfg.PasswordAttempts, cfg.PasswordWindow, limiterKeys),
		source: newLimiter(max(linkCap/3, 1), cfg.PasswordWindow, limiterKeys),
		link:   newLimiter(linkCap, cfg.PasswordWindow, limiterKeys),
		budget: newArgonBudget(cfg.PasswordChecksPerSecond),
	}
}

func newPWTicket(ip netip.Addr, link int64) pwTicket {
	return pwTicket{
		client: limiterKey{ip: limiterAddr(ip), link: link},
		source: limiterKey{ip: sourceAddr(ip), link: link},
		link:   limiterKey{link: link},
	}
}

// admit counts an attempt of ip on link. wait > 0 refuses it (nothing is
// counted then): by a counter when busy is false (429), by the argon2
// budget when busy is true (503).
func (g *pwGuard) admit(ip netip.Addr, link int64, now time.Time) (t pwTicket, wait time.Duration, busy bool) {
	t = newPWTicket(ip, link)
	if wait = g.client.take(t.client, now); wait > 0 {
		return t, wait, false
	}
	if wait = g.source.take(t.source, now); wait > 0 {
		g.client.refund(t.client, now)
		return t, wait, false
	}
	if wait = g.link.take(t.link, now); wait > 0 {
		g.source.refund(t.source, now)
		g.client.refund(t.client, now)
		return t, wait, false
	}
	if wait = g.budget.take(now); wait > 0 {
		g.refund(t, now)
		return t, wait, true
	}
	return t, 0, false
}

// refund gives an attempt back to its counters: it was right, or never
// checked.
func (g *pwGuard) refund(t pwTicket, now time.Time) {
	g.link.refund(t.link, now)
	g.source.refund(t.source, now)
	g.client.refund(t.client, now)
}

// unchecked gives back an admitted attempt whose check never ran (no
// semaphore slot): to the counters and to the argon2 budget.
func (g *pwGuard) unchecked(t pwTicket, now time.Time) {
	g.refund(t, now)
	g.budget.refund()
}

// throttled is how long an attempt of ip on link would be refused by the
// counters now (0: it would be checked); nothing is counted. The form shows
// it, so nobody types a password that cannot be checked.
func (g *pwGuard) throttled(ip netip.Addr, link int64, now time.Time) time.Duration {
	t := newPWTicket(ip, link)
	return max(g.client.wait(t.client, now), g.source.wait(t.source, now), g.link.wait(t.link, now))
}

// sourceAddr is the address a client counts as in a link's cap: the IPv4
// address, or the IPv6 /48.
func sourceAddr(ip netip.Addr) netip.Addr {
	if ip.Is6() && !ip.Is4In6() {
		p, _ := ip.Prefix(48)
		return p.Addr()
	}
	return ip
}

// retrySeconds is wait as a Retry-After value: whole seconds, rounded up.
func retrySeconds(wait time.Duration) int {
	return max(int(math.Ceil(wait.Seconds())), 1)
}

// argonBudget is a token bucket of argon2 checks. Its rate is
// argonCPUShare × GOMAXPROCS divided by the cost of one check, measured on
// first use with the current hash parameters (the fastest of two runs: the
// CPU a check needs, not the time it waits for a core), unless a rate is
// configured. A check with no token left is refused at once with the time
// until the next one, instead of queueing for the semaphore: queued checks
// would still take the CPU, only later.
type argonBudget struct {
	calibrate sync.Once
	mu        sync.Mutex
	rate      float64 // checks per second
	burst     float64 // tokens an idle edge saves up
	tokens    float64
	last      time.Time
}

// newArgonBudget returns a budget of rate checks per second; rate <= 0
// measures it on first use.
func newArgonBudget(rate float64) *argonBudget {
	return &argonBudget{rate: rate}
}

func (b *argonBudget) init() {
	if b.rate <= 0 {
		cost := max(argonCost(), time.Millisecond)
		b.rate = argonCPUShare * float64(runtime.GOMAXPROCS(0)) / cost.Seconds()
	}
	b.burst = max(b.rate*argonBurst.Seconds(), 1)
	b.tokens = b.burst
}

// take spends a check; wait > 0 means none is left for that long.
func (b *argonBudget) take(now time.Time) time.Duration {
	b.calibrate.Do(b.init)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.last.IsZero() {
		b.last = now
	}
	if now.After(b.last) {
		b.tokens = min(b.tokens+now.Sub(b.last).Seconds()*b.rate, b.burst)
		b.last = now
	}
	if b.tokens < 1 {
		return time.Duration((1 - b.tokens) / b.rate * float64(time.Second))
	}
	b.tokens--
	return 0
}

// refund gives back a check that never ran.
func (b *argonBudget) refund() {
	b.mu.Lock()
	b.tokens = min(b.tokens+1, b.burst)
	b.mu.Unlock()
}

// argonCost measures one argon2id check with the current parameters.
func argonCost() time.Duration {
	start := time.Now()
	h, err := secret.HashPassword("calibration")
	if err != nil {
		return argonCostFallback
	}
	first := time.Since(start)
	start = time.Now()
	secret.VerifyPassword(h, "calibration")
	return min(first, time.Since(start))
}

// limiter counts wrong attempts per key in fixed windows. It holds at most
// max keys; when full it first drops expired windows and, if still full,
// refuses further attempts (fail closed: a flood of distinct keys must not
// reopen brute force).
type limiter struct {
	mu     sync.Mutex
	n      int
	window time.Duration
	max    int
	m      map[limiterKey]*attempts
}

type limiterKey struct {
	ip   netip.Addr
	link int64
}

type attempts struct {
	start time.Time
	count int
}

func newLimiter(n int, window time.Duration, max int) *limiter {
	return &limiter{n: n, window: window, max: max, m: make(map[limiterKey]*attempts)}
}

// take counts an attempt of key and returns 0 when it may go ahead, else
// how long key must wait (nothing is counted then).
func (l *limiter) take(key limiterKey, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.m[key]
	if a != nil && now.Sub(a.start) >= l.window {
		delete(l.m, key)
		a = nil
	}
	if a == nil {
		if len(l.m) >= l.max {
			l.prune(now)
			if len(l.m) >= l.max {
				return l.window
			}
		}
		l.m[key] = &attempts{start: now, count: 1}
		return 0
	}
	if a.count >= l.n {
		return a.start.Add(l.window).Sub(now)
	}
	a.count++
	return 0
}

// wait is how long key must wait now (0: an attempt would be counted);
// nothing is counted.
func (l *limiter) wait(key limiterKey, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if a := l.m[key]; a != nil && now.Sub(a.start) < l.window && a.count >= l.n {
		return a.start.Add(l.window).Sub(now)
	}
	return 0
}

// refund gives back an attempt that was right (or never checked).
func (l *limiter) refund(key limiterKey, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if a := l.m[key]; a != nil && now.Sub(a.start) < l.window {
		if a.count--; a.count <= 0 {
			delete(l.m, key)
		}
	}
}

// limiterAddr is the address attempts are counted by: the client IP, or
// its /64 for IPv6, which one subscriber usually holds whole (counting per
// /128 would give them 2^64 fresh budgets).
func limiterAddr(ip netip.Addr) netip.Addr {
	if ip.Is6() && !ip.Is4In6() {
		p, _ := ip.Prefix(64)
		return p.Addr()
	}
	return ip
}

func (l *limiter) prune(now time.Time) {
	for k, a := range l.m {
		if now.Sub(a.start) >= l.window {
			delete(l.m, k)
		}
	}
}

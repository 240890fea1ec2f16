package server

import (
	"log/slog"
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
//   - C's source share of the edge's argon2 budget (argonSourceShare of
//     it, same source as above): the per-link counters do not stop one
//     address guessing on many links of its own, which are cheap to make;
//   - the edge's argon2 budget (argonBudget): when spent, 503 at once.
//
// Every counter counts the attempt before the check, so parallel guesses
// cannot all pass while the counts are still 0. An attempt refused by a
// later step, or never checked (no semaphore slot), is given back to the
// earlier ones, and so is a right answer: only wrong passwords are counted,
// and a right one is answered as soon as its check ends. A give-back
// counts only in the window the attempt was counted in.
//
// The counters' maps fail open: a key that finds its map full is let
// through uncounted (the argon2 budget still bounds the checks) rather than
// locking every client of every link out. They rarely fill: an entry lives
// for one window and only while it counts a wrong answer that was checked,
// so the budget's rate × PasswordWindow bounds them.

const (
	// argonCPUShare is the share of GOMAXPROCS password checks may use on
	// average; PasswordWorkers bounds the instantaneous share.
	argonCPUShare = 0.25
	// argonBurst is how long an idle edge saves its argon2 budget for: a
	// few people unlocking links at once are not refused.
	argonBurst = 2 * time.Second
	// argonCostFallback is used when the calibration cannot run.
	argonCostFallback = 50 * time.Millisecond
	// argonSourceShare is the share of the argon2 budget (rate and burst,
	// at least one check) one source may use.
	argonSourceShare = 0.1
	// argonRecalibrate is how often a measured budget is measured again;
	// the fastest measurement wins, so a first one taken while warm-up held
	// every core does not keep the rate low for good.
	argonRecalibrate = 10 * time.Minute
	limiterKeys      = 100_000
	argonSources     = 10_000
)

// pwGuard holds the attempt counters and the argon2 budget.
type pwGuard struct {
	client *limiter // per (IPv4 address or IPv6 /64, link)
	source *limiter // per (IPv4 address or IPv6 /48, link): a source's share of the link's cap
	link   *limiter // per link, all clients
	budget *argonBudget
}

// pwTicket names the counters an admitted attempt was counted in, with the
// start of the window each counted it in (zero: not counted).
type pwTicket struct {
	client, source, link                limiterKey
	clientStart, sourceStart, linkStart time.Time
}

func newPWGuard(cfg Config, log *slog.Logger) *pwGuard {
	linkCap := cfg.PasswordLinkAttempts
	if linkCap <= 0 {
		linkCap = 30
	}
	return &pwGuard{
		client: newLimiter(cfg.PasswordAttempts, cfg.PasswordWindow, limiterKeys),
		source: newLimiter(max(linkCap/3, 1), cfg.PasswordWindow, limiterKeys),
		link:   newLimiter(linkCap, cfg.PasswordWindow, limiterKeys),
		budget: newArgonBudget(cfg.PasswordChecksPerSecond, log),
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
	if t.clientStart, wait = g.client.count(t.client, now); wait > 0 {
		return t, wait, false
	}
	if t.sourceStart, wait = g.source.count(t.source, now); wait > 0 {
		g.refund(t)
		return t, wait, false
	}
	if t.linkStart, wait = g.link.count(t.link, now); wait > 0 {
		g.refund(t)
		return t, wait, false
	}
	if wait = g.budget.take(t.source.ip, now); wait > 0 {
		g.refund(t)
		return t, wait, true
	}
	return t, 0, false
}

// refund gives an attempt back to its counters: it was right, or never
// checked.
func (g *pwGuard) refund(t pwTicket) {
	g.link.refund(t.link, t.linkStart)
	g.source.refund(t.source, t.sourceStart)
	g.client.refund(t.client, t.clientStart)
}

// unchecked gives back an admitted attempt whose check never ran (no
// semaphore slot): to the counters and to the argon2 budget.
func (g *pwGuard) unchecked(t pwTicket) {
	g.refund(t)
	g.budget.refund(t.source.ip)
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

// argonBudget is a token bucket of argon2 checks, with a smaller bucket
// per source (argonSourceShare of the rate and burst) in front of it. Its
// rate is argonCPUShare × GOMAXPROCS divided by the cost of one check,
// measured on first use with the current hash parameters (the fastest of
// two runs: the CPU a check needs, not the time it waits for a core) and
// again every argonRecalibrate, keeping the fastest, unless a rate is
// configured. A check with no token left is refused at once with the time
// until the next one, instead of queueing for the semaphore: queued checks
// would still take the CPU, only later.
type argonBudget struct {
	calibrate sync.Once
	log       *slog.Logger
	measured  bool      // the rate is measured, not configured
	nextCal   time.Time // when to measure again
	mu        sync.Mutex
	rate      float64 // checks per second
	burst     float64 // tokens an idle edge saves up
	bucket            // the edge's
	sources   map[netip.Addr]*bucket
	nextPrune time.Time
}

// bucket is the state of one token bucket.
type bucket struct {
	tokens float64
	last   time.Time
}

// newArgonBudget returns a budget of rate checks per second; rate <= 0
// measures it on first use. log may be nil.
func newArgonBudget(rate float64, log *slog.Logger) *argonBudget {
	if log == nil {
		log = slog.Default()
	}
	return &argonBudget{rate: rate, log: log, sources: make(map[netip.Addr]*bucket)}
}

func (b *argonBudget) init() {
	if b.rate <= 0 {
		b.measured = true
		b.rate = argonRate(argonCost())
		b.nextCal = time.Now().Add(argonRecalibrate)
		b.log.Info("password checks: argon2 budget measured", "checks_per_second", b.rate)
	}
	b.burst = max(b.rate*argonBurst.Seconds(), 1)
	b.tokens = b.burst
}

// argonRate is the budget's rate for a check costing cost.
func argonRate(cost time.Duration) float64 {
	return argonCPUShare * float64(runtime.GOMAXPROCS(0)) / max(cost, time.Millisecond).Seconds()
}

// take spends a check of source src; wait > 0 means none is left for that
// long, for src or for everyone.
func (b *argonBudget) take(src netip.Addr, now time.Time) time.Duration {
	b.calibrate.Do(b.init)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.maybeRecalibrate(now)
	share := b.source(src, now)
	if share != nil {
		if wait := share.take(now, b.rate*argonSourceShare, b.shareBurst()); wait > 0 {
			return wait
		}
	}
	if wait := b.bucket.take(now, b.rate, b.burst); wait > 0 {
		if share != nil {
			share.tokens = min(share.tokens+1, b.shareBurst())
		}
		return wait
	}
	return 0
}

// refund gives back a check of src that never ran.
func (b *argonBudget) refund(src netip.Addr) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tokens = min(b.tokens+1, b.burst)
	if share := b.sources[src]; share != nil {
		share.tokens = min(share.tokens+1, b.shareBurst())
	}
}

func (b *argonBudget) shareBurst() float64 { return max(b.burst*argonSourceShare, 1) }

// source returns src's bucket, or nil when the map is full (fail open: the
// edge's bucket still bounds the checks). A full bucket is the same as
// none, so those are pruned, at most once per argonBurst.
func (b *argonBudget) source(src netip.Addr, now time.Time) *bucket {
	if s := b.sources[src]; s != nil {
		return s
	}
	if len(b.sources) >= argonSources && !now.Before(b.nextPrune) {
		b.nextPrune = now.Add(argonBurst)
		rate, burst := b.rate*argonSourceShare, b.shareBurst()
		for k, s := range b.sources {
			if s.tokens+now.Sub(s.last).Seconds()*rate >= burst {
				delete(b.sources, k)
			}
		}
	}
	if len(b.sources) >= argonSources {
		return nil
	}
	s := &bucket{tokens: b.shareBurst(), last: now}
	b.sources[src] = s
	return s
}

// maybeRecalibrate measures the cost of a check again, in the background,
// every argonRecalibrate; a faster result raises the rate. Called with
// b.mu held.
func (b *argonBudget) maybeRecalibrate(now time.Time) {
	if !b.measured || now.Before(b.nextCal) {
		return
	}
	b.nextCal = now.Add(argonRecalibrate)
	go func() {
		rate := argonRate(argonCost())
		b.mu.Lock()
		defer b.mu.Unlock()
		if rate > b.rate {
			b.rate = rate
			b.burst = max(b.rate*argonBurst.Seconds(), 1)
			b.log.Info("password checks: argon2 budget measured again, raised", "checks_per_second", rate)
		}
	}()
}

// take spends a token of a bucket of rate and burst; wait > 0 means none
// is left for that long.
func (k *bucket) take(now time.Time, rate, burst float64) time.Duration {
	if k.last.IsZero() {
		k.last = now
	}
	if now.After(k.last) {
		k.tokens = min(k.tokens+now.Sub(k.last).Seconds()*rate, burst)
		k.last = now
	}
	if k.tokens < 1 {
		return time.Duration((1 - k.tokens) / rate * float64(time.Second))
	}
	k.tokens--
	return 0
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
// max keys; when full it drops expired windows (at most four times a
// window, so a flood of new keys does not scan the map each) and, if still
// full, lets new keys through uncounted (see above).
type limiter struct {
	mu        sync.Mutex
	n         int
	window    time.Duration
	max       int
	m         map[limiterKey]*attempts
	nextPrune time.Time
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
	_, wait := l.count(key, now)
	return wait
}

// count is take that also returns the start of the window the attempt was
// counted in, for refund; zero when it went ahead uncounted (map full).
func (l *limiter) count(key limiterKey, now time.Time) (start time.Time, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.m[key]
	if a != nil && now.Sub(a.start) >= l.window {
		delete(l.m, key)
		a = nil
	}
	if a == nil {
		if len(l.m) >= l.max && !now.Before(l.nextPrune) {
			l.nextPrune = now.Add(l.window / 4)
			l.prune(now)
		}
		if len(l.m) >= l.max {
			return time.Time{}, 0 // fail open
		}
		l.m[key] = &attempts{start: now, count: 1}
		return now, 0
	}
	if a.count >= l.n {
		return time.Time{}, a.start.Add(l.window).Sub(now)
	}
	a.count++
	return a.start, 0
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

// refund gives back an attempt that was right (or never checked), counted
// in the window that started at start; an attempt of an earlier window, or
// never counted (zero start), gives nothing back.
func (l *limiter) refund(key limiterKey, start time.Time) {
	if start.IsZero() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if a := l.m[key]; a != nil && a.start.Equal(start) {
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

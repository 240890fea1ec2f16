package server

import (
	"fmt"
	"math"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"kurz/shared/clientip"
)

// behindProxy: clients arrive through a trusted proxy (10.0.0.1) that
// names them in X-Forwarded-For, and the argon2 budget is out of the way
// unless a test sets its own.
func behindProxy(c *Config) {
	c.Resolver = clientip.New([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")})
	c.PasswordChecksPerSecond = 1000
}

// post submits password pw to /alias as client ip (through the proxy).
func (e *env) post(alias, ip, pw string) *fasthttp.Response {
	e.t.Helper()
	return e.do(req{method: "POST", path: "/" + alias, form: "password=" + pw, peer: "10.0.0.1",
		headers: map[string]string{"X-Forwarded-For": ip}})
}

func (e *env) form(alias, ip string) *fasthttp.Response {
	e.t.Helper()
	return e.do(req{path: "/" + alias, peer: "10.0.0.1", headers: map[string]string{"X-Forwarded-For": ip}})
}

func expectThrottled(t *testing.T, r *fasthttp.Response, status int, msg string) {
	t.Helper()
	expect(t, r, status, "")
	if s, err := strconv.Atoi(string(r.Header.Peek("Retry-After"))); err != nil || s < 1 {
		t.Fatalf("Retry-After %q, want whole seconds", r.Header.Peek("Retry-After"))
	}
	expectBody(t, r, msg)
}

// A link takes 30 wrong passwords a minute across all clients (default);
// then every client, right password or not, gets 429 until the window ends.
// Right answers are not counted.
func TestPasswordLinkCap(t *testing.T) {
	e := newEnv(t, behindProxy)
	e.addLink(linkRow{Alias: "vault", URL: "https://example.com/vault", Password: "right"})
	e.addLink(linkRow{Alias: "other", URL: "https://example.com/other", Password: "right"})
	for i := range 5 {
		expect(t, e.post("vault", "203.0.113."+strconv.Itoa(i+1), "right"), 303, "/vault")
	}
	for i := range 30 { // one wrong guess from each of 30 addresses: no client limit applies
		expect(t, e.post("vault", "198.51.100."+strconv.Itoa(i+1), "wrong"), 403, "")
	}
	const msg = "Too many attempts. Please wait"
	expectThrottled(t, e.post("vault", "192.0.2.77", "right"), 429, msg)
	expectThrottled(t, e.post("vault", "2001:db8:99::1", "right"), 429, msg)
	// The form says so before anyone types.
	expectThrottled(t, e.form("vault", "192.0.2.78"), 429, msg)
	// Other links are not affected.
	expect(t, e.post("other", "192.0.2.77", "right"), 303, "/other")
	expect(t, e.form("other", "192.0.2.78"), 200, "")
}

// IPv6 clients count by /64 for their own limit and by /48 toward a
// link's cap, of which one source (IPv4 address or IPv6 /48) may fill a
// third: one site's many /64s cannot close a link alone.
func TestPasswordLinkCapIPv6Sources(t *testing.T) {
	e := newEnv(t, behindProxy, func(c *Config) { c.PasswordAttempts = 3; c.PasswordLinkAttempts = 12 })
	e.addLink(linkRow{Alias: "v6", URL: "https://example.com/", Password: "right"})
	const tooMany = "Too many attempts"
	// A /48's share is 4: 3 from one /64, then 1 from another /64.
	fill := func(site string) {
		for i := range 3 {
			expect(t, e.post("v6", site+":1::"+strconv.Itoa(i+1), "wrong"), 403, "")
		}
		expectThrottled(t, e.post("v6", site+":1::ff", "right"), 429, tooMany) // the /64's own limit
		expect(t, e.post("v6", site+":2::1", "wrong"), 403, "")
		expectThrottled(t, e.post("v6", site+":3::1", "right"), 429, tooMany) // the /48's share
		expectThrottled(t, e.form("v6", site+":4::1"), 429, tooMany)
	}
	fill("2001:db8:a")
	// Another /48 and an IPv4 client still get checked.
	expect(t, e.post("v6", "2001:db8:b:1::1", "right"), 303, "/v6")
	expect(t, e.post("v6", "192.0.2.1", "right"), 303, "/v6")
	// Three sources fill the cap of 12: the link is closed for everyone.
	fill("2001:db8:b")
	fill("2001:db8:c")
	expectThrottled(t, e.post("v6", "2001:db8:d:1::1", "right"), 429, tooMany)
	expectThrottled(t, e.post("v6", "192.0.2.1", "right"), 429, tooMany)
}

// When the edge's argon2 budget is spent, attempts are answered 503 at
// once with Retry-After, without queueing for a check, and are not counted
// against the client.
func TestPasswordArgonBudget(t *testing.T) {
	e := newEnv(t, behindProxy, func(c *Config) { c.PasswordChecksPerSecond = 0.01; c.PasswordAttempts = 1 })
	e.addLink(linkRow{Alias: "cpu", URL: "https://example.com/", Password: "right"})
	expect(t, e.post("cpu", "198.51.100.1", "wrong"), 403, "") // the budget's one check
	// Every argon2 slot taken: a request that queued for one would wait
	// semaphoreWait (3 s).
	for range cap(e.srv.pwSem) {
		e.srv.pwSem <- struct{}{}
	}
	t.Cleanup(func() {
		for range cap(e.srv.pwSem) {
			<-e.srv.pwSem
		}
	})
	for _, pw := range []string{"wrong", "right"} {
		start := time.Now()
		r := e.post("cpu", "198.51.100.2", pw)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("refused after %v: it queued for a check", d)
		}
		expectThrottled(t, r, 503, "Too many password checks right now")
		if s, _ := strconv.Atoi(string(r.Header.Peek("Retry-After"))); s < 50 || s > 100 {
			t.Fatalf("Retry-After %d, want about 1/0.01 s", s)
		}
	}
	// Not counted: with 1 attempt per client, a counted one would throttle the form.
	expect(t, e.form("cpu", "198.51.100.2"), 200, "")
}

func TestArgonBudget(t *testing.T) {
	b := newArgonBudget(2, nil) // 2 checks a second
	saved := int(2 * argonBurst.Seconds())
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Each check from another source, so that no source's share applies.
	var n byte
	src := netip.AddrFrom4([4]byte{192, 0, 2, 0})
	take := func(now time.Time) time.Duration {
		n++
		src = netip.AddrFrom4([4]byte{192, 0, 2, n})
		return b.take(src, now)
	}
	for i := range saved {
		if w := take(t0); w != 0 {
			t.Fatalf("take %d: wait %v", i, w)
		}
	}
	if w := take(t0); w != 500*time.Millisecond {
		t.Fatalf("empty bucket: wait %v, want 500ms", w)
	}
	b.refund(src)
	if w := take(t0); w != 0 {
		t.Fatalf("after refund: wait %v", w)
	}
	if w := take(t0.Add(500 * time.Millisecond)); w != 0 {
		t.Fatalf("after refill: wait %v", w)
	}
	// An earlier request time (requests run concurrently) refills nothing.
	if w := take(t0.Add(400 * time.Millisecond)); w <= 0 {
		t.Fatalf("clock went back: wait %v", w)
	}
	// Idle time saves at most argonBurst's worth.
	later := t0.Add(time.Hour)
	for range saved {
		take(later)
	}
	if w := take(later); w <= 0 {
		t.Fatal("burst larger than argonBurst's budget")
	}
}

// Without a configured rate the budget measures one argon2 check: checks
// may use a quarter of GOMAXPROCS.
func TestArgonBudgetCalibrates(t *testing.T) {
	b := newArgonBudget(0, nil)
	b.take(netip.Addr{}, time.Now())
	perCheck := argonCPUShare * float64(runtime.GOMAXPROCS(0)) / b.rate // seconds
	if math.IsNaN(b.rate) || perCheck < 0.001 || perCheck > 2 {
		t.Fatalf("rate %.1f/s: %.3fs per check, not an argon2id check", b.rate, perCheck)
	}
}

// One source (IPv4 address or IPv6 /48) gets at most a share of the edge's
// argon2 budget: an address guessing on many password links of its own
// (cheap to create, each with its own per-link counters) cannot spend the
// whole budget, and a visitor from elsewhere is still checked.
func TestArgonBudgetPerSource(t *testing.T) {
	g := newPWGuard(Config{PasswordAttempts: 5, PasswordWindow: time.Minute, PasswordChecksPerSecond: 10}, nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct{ name, attacker string }{
		{"IPv4 address", "198.51.100.9"},
		{"IPv6 /48, many /64s", "2001:db8:7:%d::1"},
	}
	for i, tt := range tests {
		now := now.Add(time.Duration(i) * time.Hour) // a full budget for each
		admitted := 0
		for link := range int64(200) {
			ip := tt.attacker
			if strings.Contains(ip, "%d") {
				ip = fmt.Sprintf(ip, link)
			}
			if _, wait, _ := g.admit(netip.MustParseAddr(ip), 1000+link, now); wait == 0 {
				admitted++
			}
		}
		if admitted == 0 || admitted > int(10*argonBurst.Seconds()*argonSourceShare)+1 {
			t.Errorf("%s: %d checks admitted, want at most its share of the budget", tt.name, admitted)
		}
		for _, visitor := range []string{"203.0.113.5", "2001:db8:8::1"} {
			if _, wait, busy := g.admit(netip.MustParseAddr(visitor), 1, now); wait != 0 {
				t.Errorf("%s: visitor %s refused (busy %v, wait %v) after the attacker", tt.name, visitor, busy, wait)
			}
		}
	}
}

// A refund lands only in the window the attempt was counted in: a check
// that ends after its window must not free an attempt of the next one.
func TestLimiterRefundSameWindow(t *testing.T) {
	l := newLimiter(1, time.Minute, 100)
	key := limiterKey{ip: netip.MustParseAddr("192.0.2.1"), link: 1}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	first, wait := l.count(key, t0)
	if wait != 0 {
		t.Fatal("first attempt refused")
	}
	next := t0.Add(time.Minute)
	if _, wait := l.count(key, next); wait != 0 {
		t.Fatal("attempt in the next window refused")
	}
	l.refund(key, first) // the first attempt's check ends late
	if _, wait := l.count(key, next); wait == 0 {
		t.Fatal("a refund from the previous window freed an attempt of this one")
	}
}

// A full limiter fails open for new keys (the argon2 budget still bounds
// the checks), never closed: a flood of distinct keys must not lock every
// client out of every link. Keys already counted keep their limit.
func TestLimiterFullFailsOpen(t *testing.T) {
	l := newLimiter(1, time.Minute, 2)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	key := func(i int64) limiterKey { return limiterKey{ip: netip.MustParseAddr("192.0.2.1"), link: i} }
	for i := range int64(2) {
		if _, wait := l.count(key(i), now); wait != 0 {
			t.Fatalf("key %d refused", i)
		}
	}
	for i := range int64(5) {
		start, wait := l.count(key(10+i), now)
		if wait != 0 || !start.IsZero() {
			t.Fatalf("new key on a full limiter: wait %v, counted %v; want let through uncounted", wait, !start.IsZero())
		}
	}
	if _, wait := l.count(key(0), now); wait == 0 {
		t.Fatal("a counted key lost its limit while the limiter was full")
	}
	if len(l.m) > 2 {
		t.Fatalf("limiter grew to %d keys, max 2", len(l.m))
	}
	// Expired windows make room again.
	if start, _ := l.count(key(20), now.Add(time.Minute)); start.IsZero() {
		t.Fatal("expired windows not pruned")
	}
}

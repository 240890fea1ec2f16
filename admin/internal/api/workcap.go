package api

import (
	"context"
	"math"
	"net/http"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"kurz/shared/qrcode"
	"kurz/shared/secret"
)

// Three kinds of admin work take memory that the number of requests, not
// their size, multiplies: argon2id password hashing (secret.HashMemory,
// 19 MiB per hash), decoding a QR logo (up to MaxLogoDimension² pixels
// of up to 8 bytes) and reading and decoding a large request body. Each
// runs under a server-wide cap, a weighted semaphore in bytes sized from
// one memory budget, so a burst of such requests costs at most the budget,
// not requests × cost.
//
// A request that finds its cap full waits a little (capWait, never past its
// own context): the work is short, so room usually frees up at once. When
// it does not, the answer is a quick 503 with Retry-After rather than a
// queue that holds every waiting request's body in memory too.

const (
	// defaultWorkBudget is the budget when GOMEMLIMIT is not set.
	defaultWorkBudget = 512 << 20
	// hashCost is one argon2id hash: its memory and some slack.
	hashCost = secret.HashMemory + 1<<20
	// largeBody is the size from which a request body counts against the
	// body cap; smaller bodies cost too little to bound.
	largeBody = 64 << 10
	// capWait is how long a request waits for room before its 503.
	capWait = 2 * time.Second
)

// bodyCost is the memory a body of n bytes holds while it is read and
// decoded: the bytes, the strings decoded from them and slack. Lists are
// bounded while they are decoded (jsonlist.go), so nothing grows beyond.
func bodyCost(n int64) int64 { return 3 * n }

// workBudget is the memory all capped work may hold at once: half of
// GOMEMLIMIT when it is set, else defaultWorkBudget.
func workBudget() int64 {
	if l := debug.SetMemoryLimit(-1); l > 0 && l < math.MaxInt64 {
		return l / 2
	}
	return defaultWorkBudget
}

// workCaps are the server's caps.
type workCaps struct {
	hash *workCap // secret.HashPassword
	logo *workCap // qrcode.PrepareLogo
	body *workCap // large request bodies, from reading to the response
	wait time.Duration
}

// newWorkCaps splits budget: a quarter for hashing, a quarter for logos,
// half for bodies, each at least one operation. Hashing is also held to
// two per CPU: argon2id is CPU-bound, and more hashes at once than cores
// only hold more memory for longer.
func newWorkCaps(budget int64) *workCaps {
	hash := min(max(budget/4, hashCost), hashCost*int64(max(2, 2*runtime.GOMAXPROCS(0))))
	return &workCaps{
		hash: newWorkCap("password hashes", hash),
		logo: newWorkCap("logo decodes", max(budget/4, logoCost)),
		body: newWorkCap("large request bodies", max(budget/2, bodyCost(MaxBody))),
		wait: capWait,
	}
}

// workCap is one cap: size bytes shared by all requests of the server.
type workCap struct {
	name string
	size int64
	sem  *semaphore.Weighted
}

func newWorkCap(name string, size int64) *workCap {
	return &workCap{name: name, size: size, sem: semaphore.NewWeighted(size)}
}

// acquire takes n bytes of the cap (at most all of it), waiting up to wait
// and never past ctx. A cap that stays full is a 503. release gives the
// bytes back; calling it again does nothing.
func (c *workCap) acquire(ctx context.Context, n int64, wait time.Duration) (release func(), err error) {
	n = min(n, c.size)
	if !c.sem.TryAcquire(n) {
		wctx, cancel := context.WithTimeout(ctx, wait)
		err := c.sem.Acquire(wctx, n)
		cancel()
		if err != nil {
			return nil, Errorf(http.StatusServiceUnavailable,
				"server busy: too many %s in progress; try again in a few seconds", c.name)
		}
	}
	var once sync.Once
	return func() { once.Do(func() { c.sem.Release(n) }) }, nil
}

// HashPassword is secret.HashPassword under the hashing cap (the API's
// writes and the dashboard's account pages share it).
func (s *Server) HashPassword(ctx context.Context, pw string) (string, error) {
	release, err := s.caps.hash.acquire(ctx, hashCost, s.caps.wait)
	if err != nil {
		return "", err
	}
	defer release()
	return secret.HashPassword(pw)
}

// VerifyPassword is secret.VerifyPassword under the hashing cap: checking
// a password costs what hashing one does. The dashboard's sign-in uses it.
func (s *Server) VerifyPassword(ctx context.Context, hash, pw string) (bool, error) {
	release, err := s.caps.hash.acquire(ctx, hashCost, s.caps.wait)
	if err != nil {
		return false, err
	}
	defer release()
	return secret.VerifyPassword(hash, pw), nil
}

// logoCost is the most memory one logo decode can take (a progressive
// CMYK JPEG of the largest accepted size): the cap must fit one.
var logoCost = qrcode.MaxPrepareLogoMemory

// prepareLogo is qrcode.PrepareLogo under the logo cap, reserving what
// this image's header says its decode needs (typical logos: 4-10 MiB).
func (s *Server) prepareLogo(ctx context.Context, b []byte) ([]byte, error) {
	release, err := s.caps.logo.acquire(ctx, qrcode.PrepareLogoMemory(b), s.caps.wait)
	if err != nil {
		return nil, err
	}
	defer release()
	return qrcode.PrepareLogo(b)
}

// BodyRoom is bodyRoom for the dashboard's uploads (the QR form's logo
// file): the same cap holds the API's and the pages' large bodies.
func (s *Server) BodyRoom(r *http.Request) (release func(), err error) { return s.bodyRoom(r) }

// bodyRoom takes room under the body cap for r's body when it is large
// (or of unknown length) and returns its release; the room is held until
// the response is written, as long as the decoded body lives.
func (s *Server) bodyRoom(r *http.Request) (release func(), err error) {
	n := r.ContentLength
	switch {
	case n >= 0 && n < largeBody:
		return func() {}, nil
	case n < 0 || n > MaxBody:
		n = MaxBody
	}
	return s.caps.body.acquire(r.Context(), bodyCost(n), s.caps.wait)
}

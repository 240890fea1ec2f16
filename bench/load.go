package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sync/errgroup"
)

// loadConfig describes one load run against one target.
type loadConfig struct {
	Addr          string        // host:port the connections go to
	Conns         int           // keep-alive connections, one worker each
	Duration      time.Duration // bound on the run's length (0 = none; then Requests must be set)
	Requests      int64         // bound on requests sent (0 = none)
	Rate          float64       // requests/s over all connections; 0 = closed loop
	ZipfS, ZipfV  float64
	Sequential    bool   // visit every entry once, in order (cache warm-up), instead of Zipf
	Uniform       bool   // every entry equally likely, instead of Zipf
	DefaultHost   string // Host header of default-domain links; "" = Addr
	CountryHeader string // e.g. CF-IPCountry; "" = not sent
	XFF           bool   // send X-Forwarded-For with varied client IPs
	Timeout       time.Duration
	Seed          uint64
	Entries       []entry
	Tables        *headerTables
	ownerID       int64 // the zero-loss check counts this user's clicks (from the alias file)
}

// loadResult is what the workers measured, merged.
type loadResult struct {
	Start, End time.Time
	Latency    *hdrhistogram.Histogram // µs; from the intended send time in open loop
	Service    *hdrhistogram.Histogram // µs; from the actual send (open loop only)
	Lag        *hdrhistogram.Histogram // µs; actual minus intended send (open loop only)
	// HarnessLag is the part of Lag the load generator caused: actual send
	// minus the later of the intended time and the moment the connection
	// became free. The rest of Lag is waiting for a slow answer on the
	// same connection, which is the server's doing (open loop only).
	HarnessLag *hdrhistogram.Histogram
	Completed  int64 // requests answered (any status)
	Status     map[int]int64
	Errors     map[string]int64
	// ExpectedClicks counts 2xx/3xx answers to human visitors of links whose
	// kind counts a click: what ClickHouse must hold afterwards.
	ExpectedClicks int64
	// ClickRows counts 2xx/3xx answers for links whose kind counts a click,
	// any visitor class: the rows the edge writes (humans, bots and
	// previews are all stored, apart). The CPU split divides by it.
	ClickRows int64
	// NonHuman counts answers to bot and preview visitors (stored apart).
	NonHuman int64
	ByKind   [numKinds]int64
}

// Histogram range: 1 µs to 60 s at 3 significant digits.
func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, 60_000_000, 3) }

func (c *loadConfig) validate() error {
	switch {
	case c.Conns <= 0:
		return errors.New("connections must be positive")
	case c.Duration <= 0 && c.Requests <= 0 && !c.Sequential:
		return errors.New("bound the run with a duration and/or a request count")
	case len(c.Entries) == 0:
		return errors.New("no links to request")
	case c.Tables == nil:
		return errors.New("no header tables")
	case c.Rate < 0:
		return errors.New("rate must not be negative")
	case c.Sequential && c.Uniform:
		return errors.New("sequential and uniform exclude each other")
	case !c.Sequential && !c.Uniform && (c.ZipfS <= 1 || c.ZipfV < 1):
		return fmt.Errorf("zipf needs s > 1 and v >= 1 (got s=%g v=%g)", c.ZipfS, c.ZipfV)
	}
	return nil
}

// runLoad drives cfg.Addr until a bound is reached or ctx ends.
func runLoad(ctx context.Context, cfg *loadConfig) (*loadResult, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	sh := newShared(cfg)
	workers := make([]*worker, cfg.Conns)
	for i := range workers {
		workers[i] = newWorker(i, cfg, sh)
	}
	loops, err := newLoops(sh, workers)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	sh.start = start
	if cfg.Duration > 0 {
		sh.deadline = start.Add(cfg.Duration)
	}
	stop := context.AfterFunc(ctx, func() { sh.stopped.Store(true) })
	defer stop()
	var g errgroup.Group
	for _, l := range loops {
		g.Go(l.run)
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	res := &loadResult{Start: start, End: time.Now(), Latency: newHist(), Status: map[int]int64{}, Errors: map[string]int64{}}
	if cfg.Rate > 0 {
		res.Service, res.Lag, res.HarnessLag = newHist(), newHist(), newHist()
	}
	for _, w := range workers {
		w.mergeInto(res)
	}
	return res, nil
}

// newLoops deals the connections out to one event loop per GOMAXPROCS
// (--procs): one loop per core the load generator may use, like wrk -t.
func newLoops(sh *shared, workers []*worker) ([]*eventLoop, error) {
	n := min(runtime.GOMAXPROCS(0), len(workers))
	loops := make([]*eventLoop, 0, n)
	for i := range n {
		l, err := newEventLoop(sh, workers[i*len(workers)/n:(i+1)*len(workers)/n])
		if err != nil {
			for _, l := range loops {
				l.close()
			}
			return nil, err
		}
		loops = append(loops, l)
	}
	return loops, nil
}

// shared is the run state all workers read.
type shared struct {
	cfg      *loadConfig
	reqs     *requestSet
	perm     []uint32
	start    time.Time
	deadline time.Time // zero = none
	bounded  bool      // cfg.Requests > 0: budget counts down
	budget   atomic.Int64
	seqNext  atomic.Int64
	stopped  atomic.Bool
}

func newShared(cfg *loadConfig) *shared {
	sh := &shared{cfg: cfg, reqs: newRequestSet(cfg), bounded: cfg.Requests > 0}
	if !cfg.Sequential && !cfg.Uniform {
		sh.perm = rankPermutation(len(cfg.Entries), cfg.Seed)
	}
	sh.budget.Store(cfg.Requests)
	return sh
}

// take reserves one request of the budget; false when the run is over.
func (sh *shared) take(now time.Time) bool {
	if sh.stopped.Load() || !sh.deadline.IsZero() && !now.Before(sh.deadline) {
		return false
	}
	// Without a request bound the shared counter is not touched: with
	// --procs > 1 it would be a cache line every worker writes.
	return !sh.bounded || sh.budget.Add(-1) >= 0
}

// worker is one connection's request schedule and measurements: its own
// random streams and histograms (HdrHistogram is not safe for concurrent
// use; loops with --procs > 1 run in parallel), merged at the end.
type worker struct {
	id      int
	cfg     *loadConfig
	sh      *shared
	k       int    // requests started (the open-loop schedule index)
	buf     []byte // the request being sent
	rng     *rand.Rand
	zipf    *zipfPicker
	lat     *hdrhistogram.Histogram
	service *hdrhistogram.Histogram
	lag     *hdrhistogram.Histogram
	hlag    *hdrhistogram.Histogram
	status  [600]int64
	errs    map[string]int64
	done    int64
	expect  int64
	rows    int64
	other   int64
	byKind  [numKinds]int64
}

func newWorker(id int, cfg *loadConfig, sh *shared) *worker {
	w := &worker{id: id, cfg: cfg, sh: sh, buf: make([]byte, 0, 2048), lat: newHist(), errs: map[string]int64{}}
	w.rng = rand.New(rand.NewPCG(cfg.Seed, uint64(id)+1))
	if !cfg.Sequential && !cfg.Uniform {
		w.zipf = newZipfPicker(w.rng, cfg.ZipfS, cfg.ZipfV, sh.perm)
	}
	if cfg.Rate > 0 {
		w.service, w.lag, w.hlag = newHist(), newHist(), newHist()
	}
	return w
}

func (w *worker) pick() (int, bool) {
	switch {
	case w.cfg.Sequential:
		i := w.sh.seqNext.Add(1) - 1
		return int(i), i < int64(len(w.cfg.Entries))
	case w.cfg.Uniform:
		return w.rng.IntN(len(w.cfg.Entries)), true
	}
	return w.zipf.next(), true
}

func (w *worker) record(intended, sent, done time.Time, status, idx int, human bool) {
	w.done++
	if status >= 0 && status < len(w.status) {
		w.status[status]++
	}
	if w.cfg.Rate > 0 {
		l, s, g := openLatency(intended, sent, done)
		w.lat.RecordValue(max(l.Microseconds(), 1)) //nolint:errcheck // clamps at 60 s
		w.service.RecordValue(max(s.Microseconds(), 1))
		w.lag.RecordValue(max(g.Microseconds(), 1))
	} else {
		w.lat.RecordValue(max(done.Sub(sent).Microseconds(), 1))
	}
	k := w.cfg.Entries[idx].Kind
	w.byKind[k]++
	if status < 200 || status >= 400 {
		return
	}
	if k.Counts() {
		w.rows++
	}
	switch {
	case !human:
		w.other++
	case k.Counts():
		w.expect++
	}
}

func (w *worker) recordErr(err error) {
	k := errKind(err)
	if _, ok := w.errs[k]; ok || len(w.errs) < 16 {
		w.errs[k]++
	} else {
		w.errs["other"]++
	}
}

// errKind groups client errors into a few stable names for the report.
func errKind(err error) string {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, errClosed):
		return "connection reset/closed"
	case errors.Is(err, errMalformed):
		return "malformed response"
	case errors.Is(err, errTooLarge):
		return "response too large"
	}
	s := err.Error()
	if i := strings.IndexByte(s, ':'); i > 0 && i < 60 {
		s = s[:i]
	}
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}

func (w *worker) mergeInto(res *loadResult) {
	res.Latency.Merge(w.lat)
	if res.Service != nil {
		res.Service.Merge(w.service)
		res.Lag.Merge(w.lag)
		res.HarnessLag.Merge(w.hlag)
	}
	res.Completed += w.done
	res.ExpectedClicks += w.expect
	res.ClickRows += w.rows
	res.NonHuman += w.other
	for s, n := range w.status {
		if n > 0 {
			res.Status[s] += n
		}
	}
	for k, n := range w.errs {
		res.Errors[k] += n
	}
	for k, n := range w.byKind {
		res.ByKind[k] += n
	}
}

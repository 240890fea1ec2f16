package price

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"kurz/shared/pgstore"
)

// PollConfig configures a Poller; zero values take the defaults.
type PollConfig struct {
	Symbols  []string
	Interval time.Duration // between rounds; default 1 min
	Timeout  time.Duration // per upstream request; default 10 s, at most Interval
	// MaxBackoff caps the pause of a failing symbol; default 32 × Interval.
	MaxBackoff time.Duration
	// Concurrency bounds the requests in flight; default 4.
	Concurrency int
}

// Sink stores the ticks of one round (Service.Update in production).
type Sink func(ctx context.Context, ticks []pgstore.Quote) error

// Poller asks a Provider for each configured symbol once per interval. A
// symbol whose fetch fails (error status, timeout, garbage) is retried
// after an exponentially growing pause; the other symbols are not affected.
type Poller struct {
	provider Provider
	sink     Sink
	cfg      PollConfig
	log      *slog.Logger
	// state is touched only by the goroutine running the rounds.
	state map[string]*symbolState
	stats pollCounters
}

// pollCounters are the poller's counters, read by Stats at any time.
type pollCounters struct {
	rounds, fetches, fetchErrors, stored, storeErrors atomic.Uint64
}

// PollStats counts the poller's work since start.
type PollStats struct {
	Rounds      uint64 // rounds run
	Fetches     uint64 // symbols fetched from the upstream, failed ones included
	FetchErrors uint64 // fetches that failed (error status, timeout, garbage)
	Stored      uint64 // quotes stored
	StoreErrors uint64 // rounds whose quotes could not be stored
}

// Stats returns the poller's counters.
func (p *Poller) Stats() PollStats {
	c := &p.stats
	return PollStats{Rounds: c.rounds.Load(), Fetches: c.fetches.Load(), FetchErrors: c.fetchErrors.Load(),
		Stored: c.stored.Load(), StoreErrors: c.storeErrors.Load()}
}

type symbolState struct {
	fails   int
	next    time.Time // not polled before this instant
	lastAt  time.Time // quote time last stored, to skip unchanged quotes
	lastErr string
}

// NewPoller validates the symbols and applies the defaults.
func NewPoller(p Provider, sink Sink, c PollConfig, log *slog.Logger) (*Poller, error) {
	if len(c.Symbols) == 0 {
		return nil, errors.New("price poller: no symbols configured")
	}
	if c.Interval <= 0 {
		c.Interval = time.Minute
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	c.Timeout = min(c.Timeout, c.Interval)
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 32 * c.Interval
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 4
	}
	if log == nil {
		log = slog.Default()
	}
	state := make(map[string]*symbolState, len(c.Symbols))
	syms := make([]string, 0, len(c.Symbols))
	for _, raw := range c.Symbols {
		s, err := NormalizeSymbol(raw)
		if err != nil {
			return nil, fmt.Errorf("price poller: symbol %q: %w", raw, err)
		}
		if state[s] == nil {
			state[s] = &symbolState{}
			syms = append(syms, s)
		}
	}
	c.Symbols = syms
	return &Poller{provider: p, sink: sink, cfg: c, log: log, state: state}, nil
}

// Run polls until ctx ends, starting with a round at once.
func (p *Poller) Run(ctx context.Context) {
	p.log.Info("price poller started", "symbols", len(p.cfg.Symbols), "interval", p.cfg.Interval.String())
	t := time.NewTicker(p.cfg.Interval)
	defer t.Stop()
	now := time.Now()
	for {
		p.round(ctx, now)
		select {
		case <-ctx.Done():
			p.log.Info("price poller stopped")
			return
		case now = <-t.C:
		}
	}
}

// result is one symbol's outcome in a round.
type result struct {
	symbol string
	quote  pgstore.Quote
	err    error
}

// round fetches every symbol due at now, concurrently and each under its
// own timeout, then stores the new quotes in one batch. It returns the
// symbols fetched successfully and those that failed (for tests and logs).
func (p *Poller) round(ctx context.Context, now time.Time) (ok, failed int) {
	results := p.fetchDue(ctx, now)
	p.stats.rounds.Add(1)
	p.stats.fetches.Add(uint64(len(results)))
	var ticks []pgstore.Quote
	for _, r := range results {
		st := p.state[r.symbol]
		if r.err != nil {
			p.stats.fetchErrors.Add(1)
			failed++
			st.fails++
			pause := p.backoff(st.fails)
			st.next = now.Add(pause)
			// Log a symbol's failure when it starts or changes, not on every
			// retry: a dead vendor must not flood the log.
			if msg := r.err.Error(); msg != st.lastErr || st.fails == 1 {
				p.log.Warn("price poll failed", "symbol", r.symbol, "fails", st.fails, "retry_in", pause.String(), "err", msg)
				st.lastErr = msg
			}
			continue
		}
		ok++
		if st.fails > 0 {
			p.log.Info("price poll recovered", "symbol", r.symbol, "after_fails", st.fails)
		}
		st.fails, st.next, st.lastErr = 0, time.Time{}, ""
		if r.quote.QuotedAt.Equal(st.lastAt) {
			continue // the vendor repeats its last quote (market closed)
		}
		ticks = append(ticks, r.quote)
	}
	if len(ticks) == 0 || ctx.Err() != nil {
		return ok, failed
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := p.sink(sctx, ticks); err != nil {
		p.stats.storeErrors.Add(1)
		p.log.Warn("price poll: store quotes", "ticks", len(ticks), "err", err)
		return ok, failed
	}
	p.stats.stored.Add(uint64(len(ticks)))
	for _, q := range ticks {
		p.state[q.Symbol].lastAt = q.QuotedAt
	}
	return ok, failed
}

// backoff is Interval·2^fails, capped: after the first failure the symbol
// skips one round, then three, seven, …
func (p *Poller) backoff(fails int) time.Duration {
	d := p.cfg.Interval << min(fails, 20)
	if d <= 0 || d > p.cfg.MaxBackoff {
		return p.cfg.MaxBackoff
	}
	return d
}

func (p *Poller) fetchDue(ctx context.Context, now time.Time) []result {
	var due []string
	for _, s := range p.cfg.Symbols {
		if !now.Before(p.state[s].next) {
			due = append(due, s)
		}
	}
	results := make([]result, len(due))
	sem := make(chan struct{}, p.cfg.Concurrency)
	var wg sync.WaitGroup
	for i, s := range due {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			results[i] = p.fetch(ctx, s)
		})
	}
	wg.Wait()
	return results
}

// fetch isolates one symbol: its own timeout, and a panic in a provider
// becomes this symbol's error instead of ending the poller.
func (p *Poller) fetch(ctx context.Context, symbol string) (r result) {
	r.symbol = symbol
	defer func() {
		if v := recover(); v != nil {
			r.err = fmt.Errorf("provider panic: %v", v)
		}
	}()
	fctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	r.quote, r.err = p.provider.Fetch(fctx, symbol)
	if r.err == nil && r.quote.Symbol != symbol {
		r.err = fmt.Errorf("provider answered for %q", r.quote.Symbol)
	}
	return r
}

package price

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/dgraph-io/ristretto/v2"

	"kurz/shared/link"
	"kurz/shared/pgstore"
)

// Options tune a Service; zero values take the defaults.
type Options struct {
	// StaleAfter is the age after which a quote is flagged stale; 0 never.
	StaleAfter time.Duration
	// CacheTTL bounds how long a cached answer (or "unknown symbol") is
	// served without asking PostgreSQL. Updates through this Service refresh
	// the cache at once; the TTL is what makes updates by other processes
	// (the import command, other admin replicas) visible. Default 2 s.
	CacheTTL time.Duration
	// MaxSymbols is the cache capacity in symbols. Default 100 000.
	MaxSymbols int64
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	Log *slog.Logger
}

// Service answers price lookups and applies price updates.
type Service struct {
	store      *pgstore.Store
	ticks      driver.Conn // nil: tick history is not recorded
	cache      *ristretto.Cache[string, *entry]
	updateMu   sync.Mutex // Update: the commit and the cache in one order
	staleAfter time.Duration
	ttl        time.Duration
	now        func() time.Time
	log        *slog.Logger
}

// entry is a cached answer; nil means the symbol is unknown.
type entry struct {
	answer Answer
}

// Answer is the latest quote of a symbol as the API shows it.
type Answer struct {
	Symbol      string
	Price       string // canonical decimal text
	Currency    string
	QuotedAt    time.Time
	LastUpdated string // QuotedAt in ISO 8601 with an explicit offset
	Stale       bool
}

// TimeLayout renders last_updated: ISO 8601 with a numeric UTC offset
// ("+00:00", never "Z"), fractions of a second only when there are any.
const TimeLayout = "2006-01-02T15:04:05.999999-07:00"

// Source names where a tick came from (the price_ticks source column).
type Source string

// The feeds.
const (
	SourceImport Source = "import"
	SourcePush   Source = "push"
	SourcePoll   Source = "poll"
)

// NewService builds a Service over the PostgreSQL store and, when ticks is
// not nil, the ClickHouse connection that receives the tick history.
func NewService(st *pgstore.Store, ticks driver.Conn, o Options) (*Service, error) {
	if o.CacheTTL <= 0 {
		o.CacheTTL = 2 * time.Second
	}
	if o.MaxSymbols <= 0 {
		o.MaxSymbols = 100_000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	cache, err := ristretto.NewCache(&ristretto.Config[string, *entry]{
		NumCounters:        o.MaxSymbols * 10,
		MaxCost:            o.MaxSymbols,
		BufferItems:        64,
		IgnoreInternalCost: true,
		Metrics:            true, // CacheStats
	})
	if err != nil {
		return nil, fmt.Errorf("price cache: %w", err)
	}
	return &Service{store: st, ticks: ticks, cache: cache, staleAfter: o.StaleAfter,
		ttl: o.CacheTTL, now: o.Now, log: o.Log}, nil
}

// CacheStats describes the price cache for /metrics.
type CacheStats struct {
	Hits, Misses, Evictions uint64
	Symbols                 int64 // answers held, "unknown symbol" included
}

// CacheStats reports the price cache's counters (ristretto's: an expired
// entry leaving counts as an eviction).
func (s *Service) CacheStats() CacheStats {
	m := s.cache.Metrics
	return CacheStats{Hits: m.Hits(), Misses: m.Misses(), Evictions: m.KeysEvicted(),
		Symbols: max(int64(m.CostAdded())-int64(m.CostEvicted()), 0)}
}

// Close releases the cache.
func (s *Service) Close() { s.cache.Close() }

// Get returns the latest quote of symbol (already normalised by
// NormalizeSymbol). A cache hit does no I/O; a miss reads PostgreSQL and
// caches the answer, including "unknown" (link.ErrNotFound).
func (s *Service) Get(ctx context.Context, symbol string) (Answer, error) {
	e, hit := s.cache.Get(symbol)
	if !hit {
		var err error
		if e, err = s.load(ctx, symbol); err != nil {
			return Answer{}, err
		}
	}
	if e == nil {
		return Answer{}, fmt.Errorf("quote %q: %w", symbol, link.ErrNotFound)
	}
	a := e.answer
	a.Stale = s.staleAfter > 0 && s.now().Sub(a.QuotedAt) > s.staleAfter
	return a, nil
}

func (s *Service) load(ctx context.Context, symbol string) (*entry, error) {
	q, err := s.store.Quote(ctx, symbol)
	var e *entry
	switch {
	case err == nil:
		e = newEntry(q)
	case errors.Is(err, link.ErrNotFound):
	default:
		return nil, err
	}
	// An Update may have cached a newer quote while we read; keep it. (A
	// write landing between this check and the Set below is overwritten by
	// the older answer for at most the TTL.)
	if cur, ok := s.cache.Get(symbol); ok && cur != nil && (e == nil || cur.answer.QuotedAt.After(e.answer.QuotedAt)) {
		return cur, nil
	}
	s.cache.SetWithTTL(symbol, e, 1, s.ttl)
	return e, nil
}

func newEntry(q pgstore.Quote) *entry {
	return &entry{answer: Answer{
		Symbol:      q.Symbol,
		Price:       q.Price,
		Currency:    q.Currency,
		QuotedAt:    q.QuotedAt,
		LastUpdated: q.QuotedAt.UTC().Format(TimeLayout),
	}}
}

// Update stores validated ticks: the newer ones become the latest quotes in
// PostgreSQL (one transaction) and replace the cached answers before Update
// returns, then all ticks are appended to ClickHouse. It returns how many
// quotes changed. A ClickHouse failure after the PostgreSQL commit is
// reported as link.ErrUnavailable: repeating the update is safe, because
// an equal tick never changes a quote again.
func (s *Service) Update(ctx context.Context, ticks []pgstore.Quote, src Source) (int, error) {
	if len(ticks) == 0 {
		return 0, nil
	}
	// One update at a time from the commit to the cache: updates then
	// reach the cache in the order PostgreSQL took them, so an older quote
	// committed first cannot be cached over a newer one.
	s.updateMu.Lock()
	changed, err := s.store.UpsertQuotes(ctx, ticks)
	if err != nil {
		s.updateMu.Unlock()
		return 0, err
	}
	entries := make([]*entry, len(changed))
	for i, q := range changed {
		// Replacing an existing entry is synchronous in ristretto; a new one
		// goes through its buffer, hence Wait below.
		entries[i] = newEntry(q)
		s.cache.SetWithTTL(q.Symbol, entries[i], 1, s.ttl)
	}
	s.cache.Wait()
	// Once more, now that the buffer is applied: when a miss cached by
	// load was still in the buffer, both Sets were new keys there, and the
	// cache keeps the first it admitted, the "unknown" (TestUpdateAfter-
	// CachedMiss). The key is present now, so this Set replaces it at once.
	for _, e := range entries {
		s.cache.SetWithTTL(e.answer.Symbol, e, 1, s.ttl)
	}
	s.cache.Wait()
	s.updateMu.Unlock()
	if s.ticks != nil {
		if err := appendTicks(ctx, s.ticks, ticks, src); err != nil {
			return len(changed), fmt.Errorf("%w: %w", link.ErrUnavailable, err)
		}
	}
	return len(changed), nil
}

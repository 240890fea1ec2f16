package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/dgraph-io/ristretto/v2"
	"github.com/valyala/fasthttp"
	"golang.org/x/sync/singleflight"

	"kurz/edge/internal/catalog"
	"kurz/shared/chstore"
	"kurz/shared/visitorpage"
)

// The public stats page of a link: {shorturl}+, for links whose status is
// public. Anyone may ask for it, so ClickHouse is shielded: a link's
// numbers are read at most once per statsTTL (cached per link id, with
// concurrent misses merged), at most statsReaders reads run at once, and
// a failed read is remembered for statsFailTTL so a ClickHouse outage
// costs one timed-out read per link and period rather than one per
// visitor. The public check is made on every request against the link
// cache, so a link turned private stops showing at once.

const (
	statsTTL     = 30 * time.Second
	statsFailTTL = 5 * time.Second
	// statsReaders bounds concurrent ClickHouse reads; each is two
	// queries of 7–9 ms on the aggregate tables (shared/chstore).
	statsReaders     = 2
	statsReadTimeout = 3 * time.Second
	statsQueueWait   = 2 * time.Second
	statsRetryAfter  = 30
)

var (
	errStatsBusy = errors.New("stats readers busy")
	errNoStats   = errors.New("no stats reader configured")
)

// statsCache caches link summaries by link id.
type statsCache struct {
	read  func(ctx context.Context, id int64) (*chstore.Summary, error)
	c     *ristretto.Cache[int64, *statsEntry]
	group singleflight.Group
	sem   chan struct{}
}

// statsEntry is a summary, or the error of the read that failed.
type statsEntry struct {
	sum *chstore.Summary
	err error
}

func newStatsCache(read func(ctx context.Context, id int64) (*chstore.Summary, error)) (*statsCache, error) {
	c, err := ristretto.NewCache(&ristretto.Config[int64, *statsEntry]{
		NumCounters: 1e5, MaxCost: 8 << 20, BufferItems: 64, IgnoreInternalCost: true,
	})
	if err != nil {
		return nil, fmt.Errorf("stats cache: %w", err)
	}
	return &statsCache{read: read, c: c, sem: make(chan struct{}, statsReaders)}, nil
}

func (c *statsCache) close() { c.c.Close() }

// get returns link id's summary, reading it on a miss.
func (c *statsCache) get(id int64) (*chstore.Summary, error) {
	if e, ok := c.c.Get(id); ok {
		return e.sum, e.err
	}
	v, _, _ := c.group.Do(strconv.FormatInt(id, 10), func() (any, error) {
		return c.load(id), nil
	})
	e := v.(*statsEntry)
	return e.sum, e.err
}

// load reads one summary in a reader slot and caches the outcome; a busy
// reader pool is not cached (it says nothing about this link).
func (c *statsCache) load(id int64) *statsEntry {
	if c.read == nil {
		return &statsEntry{err: errNoStats}
	}
	t := time.NewTimer(statsQueueWait)
	defer t.Stop()
	select {
	case c.sem <- struct{}{}:
	case <-t.C:
		return &statsEntry{err: errStatsBusy}
	}
	defer func() { <-c.sem }()
	ctx, cancel := context.WithTimeout(context.Background(), statsReadTimeout)
	defer cancel()
	sum, err := c.read(ctx, id)
	e := &statsEntry{sum: sum, err: err}
	ttl, cost := statsTTL, int64(128)
	if err != nil {
		ttl = statsFailTTL
	} else {
		cost += summaryCost(sum)
	}
	c.c.SetWithTTL(id, e, cost, ttl)
	c.c.Wait() // visible to the next get: singleflight has let go of the key
	return e
}

func summaryCost(s *chstore.Summary) int64 {
	n := int64(0)
	for _, l := range [][]chstore.Count{s.Countries, s.Referrers, s.Browsers, s.OS} {
		for _, c := range l {
			n += 32 + int64(len(c.Name))
		}
	}
	return n + 32*int64(len(s.Categories))
}

// statsPage serves {alias}+. Unknown and private links get the same 404
// page (never the domain's redirect404), so the page reveals nothing about
// links that are not public; an expired public link gets 410 like the
// link; unreadable numbers a 503 page, never wrong numbers.
func (s *Server) statsPage(ctx *fasthttp.RequestCtx, alias []byte) {
	if !isGetOrHead(ctx.Method()) {
		methodNotAllowed(ctx)
		return
	}
	l, _, ok := s.resolve(ctx, alias)
	if !ok {
		return
	}
	if l.Missing() || !l.Public() {
		s.notFoundRoute(ctx)
		return
	}
	if l.ExpiredAt(requestTime(ctx).UnixNano()) {
		s.page(ctx, &visitorpage.GonePage{HomeURL: s.homeURL()})
		return
	}
	sum, err := s.stats.get(l.ID)
	if err != nil {
		s.page(ctx, &visitorpage.StatsUnavailablePage{RetryAfter: statsRetryAfter})
		return
	}
	s.page(ctx, s.statsData(ctx, l, sum))
}

// statsData is the page of l's summary. The destination is shown (the
// owner made the link public), except for password-protected links,
// whose password guards exactly that.
func (s *Server) statsData(ctx *fasthttp.RequestCtx, l *catalog.Link, sum *chstore.Summary) *visitorpage.StatsPage {
	d := &visitorpage.StatsPage{
		Title: l.MetaTitle, Alias: l.Alias(), ShortURL: s.shortURL(ctx, l),
		Clicks: sum.Clicks, UniqueClicks: sum.UniqueClicks,
		Countries: statsCounts(sum.Countries), Referrers: statsCounts(sum.Referrers),
		Browsers: statsCounts(sum.Browsers), OS: statsCounts(sum.OS),
		CacheSeconds: int(statsTTL / time.Second),
	}
	if l.PasswordHash == "" {
		d.Destination = l.Dest()
	}
	return d
}

func statsCounts(cs []chstore.Count) []visitorpage.StatsCount {
	out := make([]visitorpage.StatsCount, len(cs))
	for i, c := range cs {
		out[i] = visitorpage.StatsCount{Name: c.Name, N: c.N}
	}
	return out
}

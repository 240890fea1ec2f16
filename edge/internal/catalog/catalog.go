// Package catalog is the edge's in-memory view of PostgreSQL and its only
// owner: links compiled for the hot path, branded domains, campaigns and QR
// codes, negative entries for what does not exist, the start-up warm-up,
// and the change notices that keep all of them current (changes.go).
//
// Compile on write, match on read: everything a request needs
// (destination with parameters applied, targeting tables, page content) is
// prepared when a link enters the cache, so a hit parses nothing and
// allocates nothing.
//
// Every cache keeps one rule, implemented once (versions.go): a load that
// overlaps an invalidation of its key never stores its result.
package catalog

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"kurz/shared/link"
	"kurz/shared/pgstore"
)

// Source is what the catalog reads: the edge's queries of shared/pgstore
// (*pgstore.Store implements it; tests wrap it to count queries).
type Source interface {
	EdgeLinkByAlias(ctx context.Context, host, alias string) (*link.EdgeLink, error)
	EdgeLinksRecent(ctx context.Context, limit int, fn func(*link.EdgeLink) bool) error
	EdgeLinkKeys(ctx context.Context, ids []int64, fn func(host, alias string)) error
	EdgeLinkKeysUsing(ctx context.Context, obj pgstore.Object, id int64, fn func(host, alias string)) error
	EdgeDomains(ctx context.Context) ([]link.EdgeDomain, error)
	// The keys of everything, for the existence sets (existence.go).
	EdgeAllLinkKeys(ctx context.Context, fn func(host, alias []byte)) error
	EdgeAllCampaignKeys(ctx context.Context, fn func(id int64, slug, username []byte)) error
	EdgeAllQRCodes(ctx context.Context, fn func(code []byte)) error
	EdgeRotatorBySlug(ctx context.Context, slug string) (*link.EdgeRotator, error)
	EdgeCampaignOfUser(ctx context.Context, username, slug string, id int64) (*link.EdgeCampaign, error)
	EdgeQRTargetByCode(ctx context.Context, code string) (*link.EdgeQRTarget, error)
	EdgeQRByCode(ctx context.Context, code string) (*link.EdgeQR, error)
	Ping(ctx context.Context) error
}

var _ Source = (*pgstore.Store)(nil)

// Config tunes a Catalog.
type Config struct {
	Log *slog.Logger
	// BaseHost is the default domain's host[:port] (KURZ_BASE_URL): no
	// branded domain is ever served under its name.
	BaseHost    string
	MaxBytes    int64         // byte budget of the link cache (KURZ_CACHE_MAX_BYTES); default 256 MiB
	LoadTimeout time.Duration // bound on one miss's database round trip; default 2 s
	NegativeTTL time.Duration // how long an unknown alias, slug or code stays known-unknown; default 30 s
	// CampaignBytes is the campaign cache's byte budget; default and
	// minimum 4 MiB (the largest entry, a rotator, is ~700 KB).
	CampaignBytes int64
	// SyncTimeout bounds the queries a change notice or a resync runs
	// (domain reload, links using a changed row); default 5 s.
	SyncTimeout time.Duration
	// MaxLoads bounds the database loads of misses running at once, and
	// LoadQueue how many more may wait for a turn; past that a miss is
	// refused at once (ErrBusy: 503, Retry-After 1). Defaults 32 and 64;
	// MaxLoads < 0: unbounded (measurements of the old behaviour).
	MaxLoads, LoadQueue int
	// NoKeySets turns the existence sets off: every miss of an unknown
	// alias, slug or code asks the database (measurements of the old
	// behaviour; tests of the fallback).
	NoKeySets bool
	// Replica, when set, is a read replica of the database Source reads:
	// the loads of misses and the warm-up read it while it has replayed
	// what they need (reads.go). Both must report their WAL position.
	Replica Source

	gate *loadGate // shared by every cache of one catalog (set by New)
}

// ErrUnavailable wraps a failed load: the database did not answer in time.
var ErrUnavailable = link.ErrUnavailable

// Catalog owns every cache of the edge.
type Catalog struct {
	src       Source
	reads     *reads
	log       *slog.Logger
	cfg       Config
	links     *linkCache
	domains   *domainSet
	campaigns *campaigns
	qrScans   *QRCodes[*QRScan]
	keys      *existence
	qrs       qrRegistry // every QR code cache: qrScans and the server's
	warm      warmState
}

// New returns an empty catalog over src; call ReloadDomains before serving.
func New(src Source, cfg Config) (*Catalog, error) {
	if src == nil {
		return nil, errors.New("catalog: Source is required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 256 << 20
	}
	if cfg.LoadTimeout <= 0 {
		cfg.LoadTimeout = 2 * time.Second
	}
	if cfg.NegativeTTL <= 0 {
		cfg.NegativeTTL = 30 * time.Second
	}
	if cfg.CampaignBytes <= 0 {
		cfg.CampaignBytes = 4 << 20
	}
	if cfg.SyncTimeout <= 0 {
		cfg.SyncTimeout = 5 * time.Second
	}
	if cfg.MaxLoads == 0 {
		cfg.MaxLoads = 32
	}
	if cfg.LoadQueue == 0 {
		cfg.LoadQueue = 64
	}
	cfg.gate = newLoadGate(cfg.MaxLoads, cfg.LoadQueue)
	rd, err := newReads(src, cfg.Replica, cfg.Log)
	if err != nil {
		return nil, err
	}
	c := &Catalog{src: src, reads: rd, log: cfg.Log, cfg: cfg, domains: newDomainSet(cfg.BaseHost), keys: newExistence(src, cfg)}
	if c.links, err = newLinkCache(rd, cfg, c.keys); err != nil {
		rd.close()
		return nil, err
	}
	if c.campaigns, err = newCampaigns(rd, cfg); err != nil {
		rd.close()
		c.links.close()
		return nil, err
	}
	c.campaigns.o.absent = c.keys.campaignAbsent
	if c.qrScans, err = newQRCodes(c, "qr scan", qrScanBytes, c.loadQRScan, qrScanCost); err != nil {
		rd.close()
		c.links.close()
		c.campaigns.close()
		return nil, err
	}
	return c, nil
}

// Close stops the caches' goroutines.
func (c *Catalog) Close() {
	c.reads.close()
	c.keys.close()
	c.links.close()
	c.campaigns.close()
	c.qrs.close()
}

// Ping checks that the database answers (readiness).
func (c *Catalog) Ping(ctx context.Context) error { return c.src.Ping(ctx) }

// Wait blocks until the caches' buffered writes are applied (tests).
func (c *Catalog) Wait() {
	c.links.wait()
	c.campaigns.wait()
	c.qrs.wait()
}

// Link returns the cached entry of (host, alias): a link, or a negative
// entry (l.Missing()) for a known-unknown alias; ok is false on a miss.
// It does not allocate.
func (c *Catalog) Link(host string, alias []byte) (l *Link, ok bool) { return c.links.get(host, alias) }

// LoadLink fetches (host, alias) from the database and caches it.
// Concurrent loads of one key share a single query, bounded by
// LoadTimeout whatever ctx says. An unknown alias returns a negative
// entry; an unreachable database an error wrapping ErrUnavailable.
func (c *Catalog) LoadLink(ctx context.Context, host, alias string) (*Link, error) {
	return c.links.load(ctx, host, alias)
}

// InvalidateLink drops (host, alias), including a negative entry.
func (c *Catalog) InvalidateLink(host, alias string) { c.links.invalidate(host, alias) }

// Domain returns the branded domain named by a Host header, or nil for the
// default domain. It does not allocate.
func (c *Catalog) Domain(hostHeader []byte) *Domain { return c.domains.lookup(hostHeader) }

// DomainCount returns the number of branded domains.
func (c *Catalog) DomainCount() int { return c.domains.len() }

// ReloadDomains reads every branded domain.
func (c *Catalog) ReloadDomains(ctx context.Context) error { return c.domains.reload(ctx, c.src) }

package catalog

import (
	"context"
	"hash/maphash"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"kurz/shared/pgstore"
)

// existence answers "no such alias, slug or code" from memory, so that a
// flood of made-up keys costs the database nothing: it holds the hash of
// every existing key in three exact sets (keyset.go):
//
//   - links: host + "/" + alias;
//   - campaigns: the campaign cache's keys, "r:" + slug (rotator) and
//     "u:" + username + "/" + slug or id (list page), lower case;
//   - QR codes: the code.
//
// Each set is built by one streaming scan of the keys when the change
// listener (re)connects (Catalog.Resync), kept current by the change
// notices (Catalog.Apply), and stale from the moment the listener loses
// its session (Catalog.Lost) until the next build: a set that may have
// missed a change never says no. Until then every miss asks the database,
// through the load gate (gate.go). Only the misses of the caches consult
// it: a cache hit never does.
//
// Hashes are maphash with a per-process seed: which strings collide is
// not known outside the process.
type existence struct {
	off  bool
	seed maphash.Seed
	src  Source
	log  *slog.Logger

	links, campaigns, qrs keySet

	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex // guards closed and wg.Add against close
	closed bool
	wg     sync.WaitGroup
}

// scanTimeout bounds one scan of a table's keys (a million links take
// about a second).
const scanTimeout = 5 * time.Minute

func newExistence(src Source, cfg Config) *existence {
	ctx, cancel := context.WithCancel(context.Background())
	return &existence{off: cfg.NoKeySets, seed: maphash.MakeSeed(), src: src, log: cfg.Log, ctx: ctx, cancel: cancel}
}

func (e *existence) close() {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.cancel()
	e.wg.Wait()
}

// pair hashes a + "/" + b.
func (e *existence) pair(a, b string) uint64 {
	var h maphash.Hash
	h.SetSeed(e.seed)
	h.WriteString(a)
	h.WriteByte('/')
	h.WriteString(b)
	return h.Sum64()
}

// pairBytes is pair of byte slices.
func (e *existence) pairBytes(a, b []byte) uint64 {
	var h maphash.Hash
	h.SetSeed(e.seed)
	h.Write(a)
	h.WriteByte('/')
	h.Write(b)
	return h.Sum64()
}

func (e *existence) one(s string) uint64 { return maphash.String(e.seed, s) }

// absent reports whether s is ready and lacks h.
func absent(s *keySet, h uint64) bool {
	present, known := s.lookup(h)
	return known && !present
}

// linkAbsent reports whether the link (host, alias) certainly does not exist.
func (e *existence) linkAbsent(host, alias string) bool {
	return absent(&e.links, e.pair(host, alias))
}

// campaignAbsent reports whether the campaign cache key names certainly
// no campaign. Keys it does not know the form of, and keys with non-ASCII
// bytes (the database lower-cases them by its own rules), are never
// certain.
func (e *existence) campaignAbsent(key string) bool {
	if (!strings.HasPrefix(key, "r:") && !strings.HasPrefix(key, "u:")) || !isASCII(key) {
		return false
	}
	// UserCampaign asks only for canonical ids (canonicalRef), so a list
	// page's key has one spelling.
	return absent(&e.campaigns, e.one(key))
}

// qrAbsent reports whether the QR code code certainly does not exist.
func (e *existence) qrAbsent(code string) bool { return absent(&e.qrs, e.one(code)) }

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// rebuildAll starts a build of every set (after a resync).
func (e *existence) rebuildAll() {
	e.rebuild(&e.links, "links", e.scanLinks)
	e.rebuild(&e.campaigns, "campaigns", e.scanCampaigns)
	e.rebuild(&e.qrs, "qr codes", e.scanQRs)
}

// lost makes every set stale: changes may be missed from now on.
func (e *existence) lost() {
	e.links.invalidate()
	e.campaigns.invalidate()
	e.qrs.invalidate()
}

// ready reports whether every set answers.
func (e *existence) ready() bool {
	ok := func(s *keySet) bool { _, known := s.lookup(0); return known }
	return ok(&e.links) && ok(&e.campaigns) && ok(&e.qrs)
}

// rebuild starts a build of s in the background, replacing one running.
func (e *existence) rebuild(s *keySet, what string, scan func(context.Context, func(uint64)) error) {
	if e.off {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	ctx, gen := s.begin(e.ctx)
	e.wg.Go(func() { e.build(ctx, s, gen, what, scan) })
}

// build scans until a scan's result is installed, retrying failed scans
// with backoff; it ends when superseded, invalidated or closed.
func (e *existence) build(ctx context.Context, s *keySet, gen uint64, what string, scan func(context.Context, func(uint64)) error) {
	backoff := time.Second
	for s.attempt(gen) {
		start := time.Now()
		sctx, cancel := context.WithTimeout(ctx, scanTimeout)
		hashes, err := collect(sctx, scan)
		cancel()
		if err == nil {
			if s.finish(gen, hashes) {
				continue // the journal overflowed: scan again
			}
			keys, bytes := s.stats()
			e.log.Info("existence set built", "set", what, "keys", keys, "bytes", bytes, "took", time.Since(start))
			return
		}
		if ctx.Err() != nil {
			return
		}
		e.log.Warn("existence set not built; unknown keys are looked up in the database meanwhile",
			"set", what, "err", err, "retry", backoff)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

// collect runs scan and returns the hashes it gave, sorted and unique.
// They are gathered in chunks and copied once into a slice of the exact
// size, so a million keys never cost more than twice their 8 MB.
func collect(ctx context.Context, scan func(context.Context, func(uint64)) error) ([]uint64, error) {
	const maxChunk = 1 << 16
	var (
		chunks [][]uint64
		cur    = make([]uint64, 0, 1024)
		n      int
	)
	err := scan(ctx, func(h uint64) {
		if len(cur) == cap(cur) {
			chunks = append(chunks, cur)
			cur = make([]uint64, 0, min(2*cap(cur), maxChunk))
		}
		cur = append(cur, h)
		n++
	})
	if err != nil {
		return nil, err
	}
	out := make([]uint64, 0, n)
	for i, c := range chunks {
		out = append(out, c...)
		chunks[i] = nil
	}
	out = append(out, cur...)
	slices.Sort(out)
	return slices.Compact(out), nil
}

func (e *existence) scanLinks(ctx context.Context, add func(uint64)) error {
	return e.src.EdgeAllLinkKeys(ctx, func(host, alias []byte) { add(e.pairBytes(host, alias)) })
}

func (e *existence) scanCampaigns(ctx context.Context, add func(uint64)) error {
	return e.src.EdgeAllCampaignKeys(ctx, func(id int64, slug, username []byte) {
		for _, k := range campaignKeys(id, string(slug), string(username)) {
			add(e.one(k))
		}
	})
}

func (e *existence) scanQRs(ctx context.Context, add func(uint64)) error {
	return e.src.EdgeAllQRCodes(ctx, func(code []byte) { add(maphash.Bytes(e.seed, code)) })
}

// campaignKeys are the cache keys campaign id is reached by: its rotator
// and list page by slug (when it has one) and its list page by id. Without
// a username (a notice sent while the owner was being deleted) only the
// rotator's.
func campaignKeys(id int64, slug, username string) []string {
	var keys []string
	if slug != "" {
		keys = append(keys, rotatorKey(slug))
	}
	if username == "" {
		return keys
	}
	if slug != "" {
		keys = append(keys, listKey(username, slug))
	}
	return append(keys, listKey(username, strconv.FormatInt(id, 10)))
}

// linkChanged follows a link's notice.
func (e *existence) linkChanged(ch pgstore.Change) {
	if ch.Op == pgstore.OpUpdate && (ch.OldHost != ch.Host || ch.OldAlias != ch.Alias) {
		e.links.set(e.pair(ch.OldHost, ch.OldAlias), false)
	}
	e.links.set(e.pair(ch.Host, ch.Alias), ch.Op != pgstore.OpDelete)
}

// campaignChanged follows a campaign's notice; one that does not name its
// keys (sent by the trigger before migration 0032) rebuilds the set.
func (e *existence) campaignChanged(ch pgstore.Change) {
	if !ch.CampaignKeys {
		e.rebuild(&e.campaigns, "campaigns", e.scanCampaigns)
		return
	}
	set := func(keys []string, present bool) {
		for _, k := range keys {
			e.campaigns.set(e.one(k), present)
		}
	}
	switch ch.Op {
	case pgstore.OpDelete:
		set(campaignKeys(ch.ID, ch.Slug, ch.Username), false)
	case pgstore.OpUpdate:
		if !strings.EqualFold(ch.OldSlug, ch.Slug) && ch.OldSlug != "" {
			old := []string{rotatorKey(ch.OldSlug)}
			if ch.Username != "" {
				old = append(old, listKey(ch.Username, ch.OldSlug))
			}
			set(old, false)
		}
		set(campaignKeys(ch.ID, ch.Slug, ch.Username), true)
	default:
		set(campaignKeys(ch.ID, ch.Slug, ch.Username), true)
	}
}

// qrChanged follows a QR code's notice (a code never changes).
func (e *existence) qrChanged(ch pgstore.Change) {
	e.qrs.set(e.one(ch.Code), ch.Op != pgstore.OpDelete)
}

// KeySets describes the existence sets.
type KeySets struct {
	Ready                 bool  // every set answers
	Links, Campaigns, QRs int   // keys held
	Bytes                 int64 // memory of the three sets
}

// KeySets reports the state of the existence sets (logs, tests).
func (c *Catalog) KeySets() KeySets {
	ks := KeySets{Ready: c.keys.ready()}
	var b [3]int64
	ks.Links, b[0] = c.keys.links.stats()
	ks.Campaigns, b[1] = c.keys.campaigns.stats()
	ks.QRs, b[2] = c.keys.qrs.stats()
	ks.Bytes = b[0] + b[1] + b[2]
	return ks
}

package catalog

import (
	"context"
	"sync"

	"kurz/shared/link"
)

// QRCodes caches QR codes by code, each prepared once per load. The
// catalog keeps one for scans (QRScan: only the target); the server adds
// one for rendering (NewQRCodes: content, colours, logo). The catalog
// invalidates every such cache: a QR code's change notice drops that code
// from each, a resync everything.
type QRCodes[T any] struct {
	o    *objects[T]
	load func(ctx context.Context, src Source, code string) (T, error)
}

// NewQRCodes adds a cache of maxBytes of QR codes loaded whole (with their
// logo) to c, each prepared once per load by the function its user gives
// (the server keeps what rendering needs: parsed colours, the lazily
// decoded logo). cost estimates the bytes a prepared value keeps alive.
// Scans use Catalog.QRScan, which never loads a logo.
func NewQRCodes[T any](c *Catalog, maxBytes int64, prepare func(*link.EdgeQR) T, cost func(T) int64) (*QRCodes[T], error) {
	return newQRCodes(c, "qr", maxBytes, func(ctx context.Context, src Source, code string) (T, error) {
		row, err := src.EdgeQRByCode(ctx, code)
		if err != nil {
			var zero T
			return zero, err
		}
		return prepare(row), nil
	}, cost)
}

func newQRCodes[T any](c *Catalog, what string, maxBytes int64, load func(context.Context, Source, string) (T, error), cost func(T) int64) (*QRCodes[T], error) {
	o, err := newObjects(what, maxBytes, c.cfg, c.reads, cost)
	if err != nil {
		return nil, err
	}
	o.absent = c.keys.qrAbsent // unknown codes: no query (existence.go)
	q := &QRCodes[T]{o: o, load: load}
	c.qrs.add(q)
	return q, nil
}

// Get returns the prepared QR code of code; found is false when there is
// none, err wraps ErrUnavailable when the database did not answer.
func (q *QRCodes[T]) Get(code string) (v T, found bool, err error) {
	return q.o.get(code, func(ctx context.Context, src Source) (T, error) { return q.load(ctx, src, code) })
}

// QRScan is what a scan (/q/{code}) of a QR code needs: whom to count it
// for and where to send the scanner. Scans are cached apart from renders
// and never load the code's logo, colours or content, so an entry costs
// about its target URL (qrScanCost) however large the logo.
type QRScan struct {
	ID     int64
	UserID int64
	Target string // the validated target URL; '' = not a scannable link
}

// qrScanBytes is the scan cache's budget: some 10 000 codes.
const qrScanBytes = 4 << 20

func qrScanCost(s *QRScan) int64 { return int64(32 + len(s.Target)) }

func (c *Catalog) loadQRScan(ctx context.Context, src Source, code string) (*QRScan, error) {
	row, err := src.EdgeQRTargetByCode(ctx, code)
	if err != nil {
		return nil, err
	}
	s := &QRScan{ID: row.ID, UserID: row.UserID}
	if row.TargetURL != "" {
		if u, err := link.ValidURL(row.TargetURL); err == nil {
			s.Target = u
		}
	}
	return s, nil
}

// QRScan returns what a scan of code needs; found is false when there is
// no such code, err wraps ErrUnavailable when the database did not answer.
func (c *Catalog) QRScan(code string) (s *QRScan, found bool, err error) { return c.qrScans.Get(code) }

func (q *QRCodes[T]) drop(code string) { q.o.del(code) }
func (q *QRCodes[T]) clear()           { q.o.clear() }
func (q *QRCodes[T]) wait()            { q.o.wait() }
func (q *QRCodes[T]) close()           { q.o.close() }

// qrCache is a QRCodes of any T.
type qrCache interface {
	drop(code string)
	clear()
	wait()
	close()
	stats() CacheStats
}

// qrRegistry holds the catalog's QR code caches.
type qrRegistry struct {
	mu     sync.Mutex
	caches []qrCache
}

func (r *qrRegistry) add(q qrCache) {
	r.mu.Lock()
	r.caches = append(r.caches, q)
	r.mu.Unlock()
}

func (r *qrRegistry) each(fn func(qrCache)) {
	r.mu.Lock()
	caches := r.caches
	r.mu.Unlock()
	for _, q := range caches {
		fn(q)
	}
}

func (r *qrRegistry) drop(code string) { r.each(func(q qrCache) { q.drop(code) }) }
func (r *qrRegistry) clear()           { r.each(qrCache.clear) }
func (r *qrRegistry) wait()            { r.each(qrCache.wait) }
func (r *qrRegistry) close()           { r.each(qrCache.close) }

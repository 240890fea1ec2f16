package catalog

import (
	"context"
	"sync"

	"kurz/shared/link"
)

// QRCodes caches QR codes by code, each prepared once per load by the
// function its user gives (the server keeps what rendering needs: the
// validated target, parsed colours). The catalog invalidates it: a QR
// code's change notice drops that code, a resync everything.
type QRCodes[T any] struct {
	o       *objects[T]
	src     Source
	prepare func(*link.EdgeQR) T
}

// NewQRCodes adds a QR code cache of maxBytes to c. cost estimates the
// bytes a prepared value keeps alive.
func NewQRCodes[T any](c *Catalog, maxBytes int64, prepare func(*link.EdgeQR) T, cost func(T) int64) (*QRCodes[T], error) {
	o, err := newObjects("qr", maxBytes, c.cfg, cost)
	if err != nil {
		return nil, err
	}
	q := &QRCodes[T]{o: o, src: c.src, prepare: prepare}
	c.qrs.add(q)
	return q, nil
}

// Get returns the prepared QR code of code; found is false when there is
// none, err wraps ErrUnavailable when the database did not answer.
func (q *QRCodes[T]) Get(code string) (v T, found bool, err error) {
	return q.o.get(code, func(ctx context.Context) (T, error) {
		row, err := q.src.EdgeQRByCode(ctx, code)
		if err != nil {
			var zero T
			return zero, err
		}
		return q.prepare(row), nil
	})
}

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

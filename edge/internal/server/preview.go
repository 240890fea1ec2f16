package server

import (
	"sync/atomic"

	"github.com/valyala/fasthttp"

	"kurz/edge/internal/catalog"
	"kurz/shared/visitorpage"
)

// previewSlots is the size of the rendered-preview cache: enough for the
// links that crawlers unfurl at the same time, a few MB at most.
const previewSlots = 1024

// previewCache keeps the rendered Open Graph pages of recently previewed
// links. Link-preview fetchers are 2–3% of the bench's visits, and
// executing the html/template (reflection) for each of them took 4–5% of
// the edge's CPU in the direct-link profile (edge/PERFORMANCE.md); pages
// now writes previews without the template, and this cache saves the
// rest. A preview depends only on the link and on whether the request
// came over TLS, so the bytes are reused.
//
// Direct-mapped by link id, lock-free, with a second-chance bit: a hit
// marks the entry, and a miss on a marked slot only clears the mark, so a
// link that crawlers keep fetching is not evicted by a one-off preview
// of a colliding link. An entry is valid only for the
// same *catalog.Link: an updated link is a new pointer, so a change
// misses and renders again; the entry keeps its link alive, so the
// pointer cannot be reused for another link while it is cached.
type previewCache struct {
	slots [previewSlots]atomic.Pointer[previewEntry]
}

type previewEntry struct {
	link    *catalog.Link
	tls     bool
	status  int
	headers []visitorpage.Header
	body    []byte
	used    atomic.Bool // hit since the last colliding miss
}

func (c *previewCache) get(l *catalog.Link, tls bool) *previewEntry {
	e := c.slots[uint64(l.ID)%previewSlots].Load()
	if e == nil || e.link != l || e.tls != tls {
		return nil
	}
	if !e.used.Load() {
		e.used.Store(true)
	}
	return e
}

// put caches e unless its slot holds an entry that was hit since the last
// colliding miss; that entry gets a second chance instead.
func (c *previewCache) put(e *previewEntry) {
	slot := &c.slots[uint64(e.link.ID)%previewSlots]
	if old := slot.Load(); old != nil && old.link != e.link && old.used.Swap(false) {
		return
	}
	slot.Store(e)
}

// preview answers a link-preview fetcher with l's Open Graph page.
func (s *Server) preview(ctx *fasthttp.RequestCtx, l *catalog.Link) {
	tls := ctx.IsTLS()
	if e := s.previews.get(l, tls); e != nil {
		writePage(ctx, e.status, e.headers, e.body)
		return
	}
	d := &visitorpage.PreviewPage{
		Title: l.MetaTitle, Description: l.MetaDescription, Image: l.MetaImage,
		URL: s.shortURL(ctx, l), Destination: l.Dest(),
	}
	buf := locationPool.Get()
	defer locationPool.Put(buf)
	var err error
	if buf.B, err = s.pages.AppendPreview(buf.B[:0], d); err != nil {
		s.renderFailed(ctx, err)
		return
	}
	e := &previewEntry{link: l, tls: tls, status: d.Status(), headers: s.pages.Headers(d),
		body: append([]byte(nil), buf.B...)}
	s.previews.put(e)
	writePage(ctx, e.status, e.headers, e.body)
}

package catalog

import (
	"unsafe"

	"kurz/shared/link"
)

// slab hands out the strings of one warm-up batch from a few large
// allocations. Strings that outlive the warm-up (host + alias + dest, rule
// URLs, password hashes) would otherwise be small objects scattered among
// the rows' garbage, each pinning a mostly empty span: before rule URLs
// went into the slab, a 1M-link warm-up left 50-180 MB of such
// fragmentation (edge/PERFORMANCE.md, Memory). A nil *slab allocates on
// the heap (a single link loaded on a miss).
type slab struct {
	buf []byte
	// seen interns the batch's kept strings (campaigns reuse app-store and
	// landing-page URLs across many links): newSlab lists each distinct
	// one with an empty copy, str fills the copy in on first use.
	seen map[string]string
}

// slabChunk is the size of the chunks str adds once the first one is full.
const slabChunk = 16 << 10

// newSlab sizes a slab's first chunk for the strings rows will keep, each
// distinct one once; URLs that parameters make longer spill into further
// chunks.
func newSlab(rows []*link.EdgeLink) *slab {
	n := 0
	seen := make(map[string]string)
	add := func(x string) {
		if _, ok := seen[x]; !ok && x != "" {
			seen[x] = ""
			n += len(x)
		}
	}
	for _, r := range rows {
		n += len(r.Host) + len(r.Alias) + len(r.LongURL)
		for _, x := range []string{r.PasswordHash, r.MetaTitle, r.MetaDescription, r.MetaImage, r.Redirect404, r.DeeplinkIOS, r.DeeplinkAndroid} {
			add(x)
		}
		for _, ts := range [][]link.EdgeTarget{r.Geo, r.Device, r.Language} {
			for _, t := range ts {
				add(t.URL)
			}
		}
	}
	return &slab{buf: make([]byte, 0, n), seen: seen}
}

// pack returns host + alias + dest as one string.
func (s *slab) pack(host, alias, dest string) string {
	if s == nil {
		return packStrings(host, alias, dest)
	}
	n := len(host) + len(alias) + len(dest)
	if n == 0 {
		return ""
	}
	b := s.alloc(n)
	copy(b, host)
	copy(b[len(host):], alias)
	copy(b[len(host)+len(alias):], dest)
	return unsafe.String(&b[0], n)
}

// str returns a copy of x in the slab, the same copy for equal strings.
func (s *slab) str(x string) string {
	if s == nil || x == "" {
		return x
	}
	if y := s.seen[x]; y != "" {
		return y
	}
	b := s.alloc(len(x))
	copy(b, x)
	y := unsafe.String(&b[0], len(x))
	s.seen[x] = y
	return y
}

// alloc returns n bytes of the slab. A chunk is never appended beyond its
// capacity, so the strings handed out earlier stay valid.
func (s *slab) alloc(n int) []byte {
	if len(s.buf)+n > cap(s.buf) {
		s.buf = make([]byte, 0, max(slabChunk, n))
	}
	start := len(s.buf)
	s.buf = s.buf[:start+n]
	return s.buf[start : start+n : start+n]
}

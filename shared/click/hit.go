// Package click defines what the edge records about one visit and how it
// becomes a ClickHouse row. The edge fills a Hit on the request path by
// copying bytes into fixed arrays, so the hand-off to the click pipeline
// allocates nothing; everything costly (GeoIP, User-Agent parsing, hashing)
// happens later, in the pipeline's own goroutines.
package click

// Kind says what was visited.
type Kind uint8

const (
	// KindLink is a visit of a short link (including via a campaign rotator).
	KindLink Kind = 1
	// KindQR is a scan of a QR code's tracking URL (/q/{code}).
	KindQR Kind = 2
)

// Class is the edge's classification of the visitor. Only ClassHuman counts
// towards clicks and uniqueClicks; the others are stored and reported apart.
type Class uint8

const (
	ClassHuman    Class = 0
	ClassBot      Class = 1 // crawler User-Agent
	ClassPreview  Class = 2 // link-preview fetcher (Slackbot, WhatsApp, Twitterbot, mail scanners, ...)
	ClassPrefetch Class = 3 // HEAD request or a browser prefetch (Purpose/Sec-Purpose: prefetch)
)

// String returns the stored name of the class.
func (c Class) String() string {
	switch c {
	case ClassHuman:
		return "human"
	case ClassBot:
		return "bot"
	case ClassPreview:
		return "preview"
	case ClassPrefetch:
		return "prefetch"
	}
	return "unknown"
}

// Field size caps. Longer values are truncated: a 256-byte User-Agent prefix
// identifies browser and OS, and referrer statistics only use the host.
const (
	MaxUA      = 256
	MaxReferer = 256
	MaxLang    = 64
)

// Hit is one visit as captured on the request path. It is a plain value with
// no pointers so that it can be copied into a channel or ring buffer without
// allocating.
type Hit struct {
	UnixNano int64 // time of the visit
	LinkID   int64 // links.id; 0 for a QR scan of a non-link QR
	QRID     int64 // qr_codes.id for KindQR, else 0
	OwnerID  int64 // users.id owning the link or QR
	Kind     Kind
	Class    Class
	IP       [16]byte // client IP, IPv4 as IPv4-in-IPv6; never stored raw
	Country  [2]byte  // ISO 3166 alpha-2 from a trusted header, upper case; zero when unknown
	UALen    uint16
	RefLen   uint16
	LangLen  uint16
	UA       [MaxUA]byte
	Referer  [MaxReferer]byte
	Lang     [MaxLang]byte // raw Accept-Language header (prefix)
}

// SetUA copies b (truncated) into the hit.
func (h *Hit) SetUA(b []byte) { h.UALen = uint16(copy(h.UA[:], b)) }

// SetReferer copies b (truncated) into the hit.
func (h *Hit) SetReferer(b []byte) { h.RefLen = uint16(copy(h.Referer[:], b)) }

// SetLang copies b (truncated) into the hit.
func (h *Hit) SetLang(b []byte) { h.LangLen = uint16(copy(h.Lang[:], b)) }

// UAString returns the User-Agent as a string (allocates; pipeline side only).
func (h *Hit) UAString() string { return string(h.UA[:h.UALen]) }

// RefererString returns the referrer as a string (allocates; pipeline side only).
func (h *Hit) RefererString() string { return string(h.Referer[:h.RefLen]) }

// LangString returns the Accept-Language header as a string (allocates; pipeline side only).
func (h *Hit) LangString() string { return string(h.Lang[:h.LangLen]) }

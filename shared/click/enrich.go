package click

import (
	"errors"
	"math/rand/v2"
	"net/netip"
)

// EnricherConfig configures an Enricher.
type EnricherConfig struct {
	// Secret keys the visitor id hash (KURZ_SECRET). Required.
	Secret []byte
	// CountryOf maps a client IP to its ISO 3166 alpha-2 code (zero when
	// unknown), e.g. a GeoIP lookup. Optional; used only for hits that do
	// not carry a country from a trusted header.
	CountryOf func(netip.Addr) [2]byte
	// CacheSize bounds the User-Agent, referrer-host and language caches
	// (entries per generation; up to twice as many are held). Default 10000.
	CacheSize int
}

// Enricher turns Hits into Rows: country, browser/OS/device class,
// referrer host and category, preferred language and the visitor id. It is
// safe for concurrent use and, once its caches are warm, allocates nothing.
type Enricher struct {
	countryOf func(netip.Addr) [2]byte
	ua        *uaClassifier
	ref       *refClassifier
	lang      *boundedCache[string]
	visitor   *visitorHasher
	upper     *[26 * 26]string // interned country codes "AA".."ZZ"
	lower     *[26 * 26]string // interned language codes "aa".."zz"
}

// NewEnricher builds an Enricher. It parses medama's User-Agent tables on
// first use (about 26 ms); build it once per process.
func NewEnricher(cfg EnricherConfig) (*Enricher, error) {
	if len(cfg.Secret) == 0 {
		return nil, errors.New("enricher: a visitor-hash secret is required")
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = 10000
	}
	return &Enricher{
		countryOf: cfg.CountryOf,
		ua:        newUAClassifier(cfg.CacheSize),
		ref:       newRefClassifier(cfg.CacheSize),
		lang:      newBoundedCache[string](1024),
		visitor:   newVisitorHasher(cfg.Secret),
		upper:     letterPairs('A'),
		lower:     letterPairs('a'),
	}, nil
}

// Enrich returns the row for h. The raw IP goes into the keyed visitor hash
// and, when needed, the country lookup; it is not part of the row.
func (e *Enricher) Enrich(h *Hit) Row {
	ua := h.UA[:min(int(h.UALen), MaxUA)]
	info := e.ua.classify(ua)
	ref := e.ref.classify(h.Referer[:min(int(h.RefLen), MaxReferer)])
	return Row{
		ClickID:     rand.Uint64(),
		UnixNano:    h.UnixNano,
		Kind:        h.Kind,
		Class:       h.Class,
		RefCategory: ref.cat,
		LinkID:      uint64(h.LinkID),
		QRID:        uint64(h.QRID),
		OwnerID:     uint64(h.OwnerID),
		Visitor:     e.visitor.id(&h.IP, ua),
		Country:     e.country(h),
		Browser:     info.browser,
		OS:          info.os,
		Device:      info.device,
		RefHost:     ref.host,
		Language:    e.language(h.Lang[:min(int(h.LangLen), MaxLang)]),
	}
}

func (e *Enricher) country(h *Hit) string {
	cc := h.Country
	if cc == [2]byte{} && e.countryOf != nil && h.IP != [16]byte{} {
		cc = e.countryOf(netip.AddrFrom16(h.IP).Unmap())
	}
	if i, ok := pairIndex(cc[0], cc[1]); ok {
		return e.upper[i]
	}
	return ""
}

func (e *Enricher) language(header []byte) string {
	var buf [3]byte
	tag, ok := primaryLanguage(header, &buf)
	if !ok {
		return ""
	}
	if i, ok := pairIndex(tag[0], tag[1]); ok && len(tag) == 2 {
		return e.lower[i]
	}
	if s, ok := e.lang.get(tag); ok {
		return s
	}
	s := string(tag)
	e.lang.put(s, s)
	return s
}

// pairIndex maps two ASCII letters of either case to 0..675.
func pairIndex(a, b byte) (int, bool) {
	a, b = a|0x20, b|0x20
	if a < 'a' || a > 'z' || b < 'a' || b > 'z' {
		return 0, false
	}
	return int(a-'a')*26 + int(b-'a'), true
}

func letterPairs(first byte) *[26 * 26]string {
	var t [26 * 26]string
	for i := range t {
		t[i] = string([]byte{first + byte(i/26), first + byte(i%26)})
	}
	return &t
}

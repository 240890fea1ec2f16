// Package geoip maps a client IP address to its ISO 3166-1 country code
// using a MaxMind-format database (.mmdb: GeoLite2/GeoIP2 Country or City,
// or DB-IP's lite databases, which share the schema). The edge calls
// Country on the request path, so it allocates nothing.
package geoip

import (
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/oschwald/maxminddb-golang/v2"
)

// DB is an open database, memory-mapped from its file. It is safe for
// concurrent Country calls. Close it only once no lookup can still run; to
// reload a database, open the new file, swap the pointer your callers use
// (atomic.Pointer[DB]) and close the old one after in-flight requests end.
type DB struct {
	r *maxminddb.Reader
	// codes recycles the string the decoder writes into: the decoder takes
	// its target as an interface and reflects on it, so a local variable
	// would escape and cost one allocation per lookup.
	codes sync.Pool
}

// Open memory-maps the .mmdb file at path.
func Open(path string) (*DB, error) {
	r, err := maxminddb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open geoip database %q: %w", path, err)
	}
	return &DB{r: r, codes: sync.Pool{New: func() any { return new(string) }}}, nil
}

// Close unmaps the file. Later Country calls return the zero code.
func (db *DB) Close() error {
	if err := db.r.Close(); err != nil {
		return fmt.Errorf("close geoip database: %w", err)
	}
	return nil
}

// DatabaseType is the type the file declares, e.g. "GeoLite2-Country".
func (db *DB) DatabaseType() string { return db.r.Metadata.DatabaseType }

// BuildTime is when the database was built; the edge logs it at start-up
// so a stale file gets noticed.
func (db *DB) BuildTime() time.Time { return db.r.Metadata.BuildTime() }

// Country returns the upper-case ISO 3166-1 alpha-2 code for ip, or the
// zero value when the address is invalid, not in the database, or its
// record has no usable code. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d,
// as a dual-stack listener reports IPv4 peers) are looked up as IPv4.
//
// The record's "country" (where the address is used) is preferred; when a
// network has none, e.g. one announced across a whole continent,
// "registered_country" (where it is registered) is the best guess left.
// A nil DB returns the zero value, so the edge can run without a database.
func (db *DB) Country(ip netip.Addr) [2]byte {
	if db == nil || !ip.IsValid() {
		return [2]byte{}
	}
	res := db.r.Lookup(ip.Unmap())
	if !res.Found() {
		return [2]byte{}
	}
	// The decoded string itself costs nothing: the reader's string cache
	// hands back the same string for the same data offset, and the few
	// hundred country codes all stay cached (see TestCountryZeroAllocs).
	code := db.codes.Get().(*string)
	defer db.codes.Put(code)
	*code = ""
	if err := res.DecodePath(code, "country", "iso_code"); err == nil && len(*code) == 2 {
		return toCode(*code)
	}
	*code = ""
	if err := res.DecodePath(code, "registered_country", "iso_code"); err == nil && len(*code) == 2 {
		return toCode(*code)
	}
	return [2]byte{}
}

// toCode upper-cases a two-letter code; anything else yields zero.
func toCode(s string) [2]byte {
	var c [2]byte
	for i := range 2 {
		b := s[i]
		switch {
		case 'A' <= b && b <= 'Z':
		case 'a' <= b && b <= 'z':
			b -= 'a' - 'A'
		default:
			return [2]byte{}
		}
		c[i] = b
	}
	return c
}

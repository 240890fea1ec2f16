package geoip

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"os"
)

// Legacy GeoIP (.dat) Country databases are what Debian and Ubuntu still
// ship in the package geoip-database (/usr/share/GeoIP/GeoIP.dat and
// GeoIPv6.dat). The edge reads only MaxMind DB (.mmdb) files, so `admin
// geoip convert` reads these with LegacyDB and writes an .mmdb
// (ConvertLegacy). The one pure-Go reader of the format we found
// (github.com/Eggbertx/geoip-legacy, a libGeoIP port) is not served by the
// Go module proxy, the others wrap the C library (cgo), and a converter
// must walk the whole tree rather than look addresses up; the country
// edition is small enough to read here.
//
// The format (libGeoIP's GeoIP.c): the file starts with a binary search
// tree of nodes, each two 3-byte little-endian records (left: bit 0, right:
// bit 1), walked from the address's most significant bit, node 0 first.
// A record below the edition's country base (16776960, COUNTRY_BEGIN) is
// the index of the next node; any other value is a leaf, and value - base
// indexes the country table (0 is "--", unknown). After the tree come
// three zero bytes, the info string ("GEO-106FREE 20191224 Build 1 …"),
// then the structure info: three 0xFF bytes and the edition byte, found by
// scanning back at most 20 bytes from the end.

// Legacy editions this reader understands (libGeoIP's GEOIP_*_EDITION).
const (
	legacyCountryEdition        = 1
	legacyCountryEditionV6      = 12
	legacyLargeCountryEdition   = 17
	legacyLargeCountryEditionV6 = 18
)

// Leaf bases: a record value at or above the base is a country.
const (
	legacyCountryBegin      = 16776960
	legacyLargeCountryBegin = 16515072
)

const (
	legacyRecordLen     = 3
	legacyNodeLen       = 2 * legacyRecordLen
	legacyStructMaxScan = 20  // STRUCTURE_INFO_MAX_SIZE
	legacyInfoMaxScan   = 100 // DATABASE_INFO_MAX_SIZE
)

// LegacyDB is a legacy GeoIP Country database held in memory (Debian's
// files are 2 and 8 MB).
type LegacyDB struct {
	data    []byte
	edition int
	begin   uint32
	bits    int // 32 or 128
	info    string
}

// OpenLegacy reads the legacy country database at path.
func OpenLegacy(path string) (*LegacyDB, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read legacy geoip database: %w", err)
	}
	db, err := ParseLegacy(data)
	if err != nil {
		return nil, fmt.Errorf("legacy geoip database %q: %w", path, err)
	}
	return db, nil
}

// ParseLegacy reads a legacy country database from its bytes, which it
// keeps (the caller must not change them).
func ParseLegacy(data []byte) (*LegacyDB, error) {
	if len(data) < legacyNodeLen {
		return nil, errors.New("too short to hold a search tree")
	}
	db := &LegacyDB{data: data, edition: legacyCountryEdition}
	// Files without structure info (before September 2002) are IPv4
	// country editions, as libGeoIP assumes.
	delim := structureInfo(data)
	if delim >= 0 {
		if delim+3 >= len(data) {
			return nil, errors.New("structure info has no edition byte")
		}
		db.edition = int(data[delim+3])
		if db.edition >= 106 { // databases from April 2003 and earlier
			db.edition -= 105
		}
		db.info = infoString(data, delim)
	}
	switch db.edition {
	case legacyCountryEdition:
		db.begin, db.bits = legacyCountryBegin, 32
	case legacyCountryEditionV6:
		db.begin, db.bits = legacyCountryBegin, 128
	case legacyLargeCountryEdition:
		db.begin, db.bits = legacyLargeCountryBegin, 32
	case legacyLargeCountryEditionV6:
		db.begin, db.bits = legacyLargeCountryBegin, 128
	default:
		return nil, fmt.Errorf("edition %d is not a country database (want GeoIP Country, IPv4 or IPv6)", db.edition)
	}
	return db, nil
}

// structureInfo returns the offset of the 0xFFFFFF delimiter, or -1.
func structureInfo(data []byte) int {
	for i := range legacyStructMaxScan {
		off := len(data) - 3 - i
		if off < 0 {
			break
		}
		if data[off] == 0xff && data[off+1] == 0xff && data[off+2] == 0xff {
			return off
		}
	}
	return -1
}

// infoString returns the text between the last three zero bytes before
// the structure info and the structure info itself, or "".
func infoString(data []byte, delim int) string {
	start := max(0, delim-legacyInfoMaxScan-3)
	z := bytes.LastIndex(data[start:delim], []byte{0, 0, 0})
	if z < 0 {
		return ""
	}
	return string(data[start+z+3 : delim])
}

// IPv6 reports whether the database covers IPv6 addresses (GeoIPv6.dat)
// rather than IPv4 (GeoIP.dat).
func (db *LegacyDB) IPv6() bool { return db.bits == 128 }

// Info is the database's description, e.g. "GEO-106FREE 20191224 Build 1
// Copyright (c) 2019 MaxMind Inc All Rights Reserved"; "" when absent.
func (db *LegacyDB) Info() string { return db.info }

// record returns record side (0 or 1) of node n.
func (db *LegacyDB) record(n uint32, side int) (uint32, error) {
	off := int64(n)*legacyNodeLen + int64(side)*legacyRecordLen
	if off+legacyRecordLen > int64(len(db.data)) {
		return 0, fmt.Errorf("corrupt search tree: node %d lies past the end of the file", n)
	}
	b := db.data[off : off+legacyRecordLen]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16, nil
}

// code maps a leaf value to its country code; "" for the unknown entry.
func (db *LegacyDB) code(v uint32) (string, error) {
	i := v - db.begin
	if i >= uint32(len(legacyCountryCodes)) {
		return "", fmt.Errorf("corrupt search tree: country index %d out of range", i)
	}
	if i == 0 {
		return "", nil
	}
	return legacyCountryCodes[i], nil
}

// Lookup returns the country code the database gives ip ("" when it has
// none) and the prefix length of the network the answer holds for. An
// IPv4 database takes IPv4 (or IPv4-mapped) addresses; an IPv6 database
// takes any address, IPv4 ones as ::ffff:a.b.c.d.
func (db *LegacyDB) Lookup(ip netip.Addr) (string, int, error) {
	var addr [16]byte
	switch {
	case !ip.IsValid():
		return "", 0, errors.New("invalid address")
	case db.bits == 32:
		ip = ip.Unmap()
		if !ip.Is4() {
			return "", 0, fmt.Errorf("%s is not an IPv4 address (this is an IPv4 database)", ip)
		}
		a4 := ip.As4()
		copy(addr[:], a4[:])
	default:
		addr = ip.As16()
	}
	node := uint32(0)
	for depth := range db.bits {
		v, err := db.record(node, bitAt(addr, depth))
		if err != nil {
			return "", 0, err
		}
		if v >= db.begin {
			code, err := db.code(v)
			return code, depth + 1, err
		}
		node = v
	}
	return "", 0, fmt.Errorf("corrupt search tree: no leaf after %d bits", db.bits)
}

// bitAt returns bit i (0 = most significant) of addr.
func bitAt(addr [16]byte, i int) int {
	return int(addr[i/8]>>(7-uint(i%8))) & 1
}

// Walk calls fn for every network of the tree that has a country, in
// address order, with the network's upper-case ISO code (or one of the
// legacy pseudo-codes AP, EU, A1, A2, O1). Networks the database marks
// unknown ("--") are left out. A malformed tree (a record pointing past
// the end, a cycle, a path longer than the address) is an error.
func (db *LegacyDB) Walk(fn func(netip.Prefix, string) error) error {
	w := walker{db: db, fn: fn, budget: len(db.data) / legacyNodeLen}
	return w.node(0, [16]byte{}, 0)
}

type walker struct {
	db     *LegacyDB
	fn     func(netip.Prefix, string) error
	budget int // nodes left to visit: a tree visits each at most once
}

func (w *walker) node(n uint32, addr [16]byte, depth int) error {
	if w.budget--; w.budget < 0 {
		return errors.New("corrupt search tree: more nodes visited than the file holds (a cycle)")
	}
	for side := range 2 {
		v, err := w.db.record(n, side)
		if err != nil {
			return err
		}
		a := addr
		if side == 1 {
			a[depth/8] |= 1 << (7 - uint(depth%8))
		}
		if v < w.db.begin {
			if depth+1 >= w.db.bits {
				return fmt.Errorf("corrupt search tree: node %d below the last address bit", v)
			}
			if err := w.node(v, a, depth+1); err != nil {
				return err
			}
			continue
		}
		code, err := w.db.code(v)
		if err != nil {
			return err
		}
		if code == "" {
			continue
		}
		if err := w.fn(w.prefix(a, depth+1), code); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) prefix(a [16]byte, bits int) netip.Prefix {
	if w.db.bits == 32 {
		return netip.PrefixFrom(netip.AddrFrom4([4]byte(a[:4])), bits)
	}
	return netip.PrefixFrom(netip.AddrFrom16(a), bits)
}

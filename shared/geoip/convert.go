package geoip

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"strings"
	"time"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// ConvertedDatabaseType is the database type ConvertLegacy writes into
// the .mmdb metadata (the edge logs it at start-up).
const ConvertedDatabaseType = "GeoIP-Legacy-Country-Converted"

// ConvertStats counts what ConvertLegacy wrote and left out.
type ConvertStats struct {
	IPv4, IPv6 int // networks written
	Pseudo     int // networks with a legacy pseudo-code (AP, EU, A1, A2, O1)
	Reserved   int // networks in reserved or IPv4-aliased address space
}

// ConvertLegacy writes the countries of legacy GeoIP databases into a
// MaxMind DB at out, in the GeoLite2-Country shape that DB.Country reads
// ({"country":{"iso_code":"DE"}}). v4 (GeoIP.dat) is required; v6
// (GeoIPv6.dat) may be nil. The file is written to a temporary name and
// renamed, so a running reader never sees half of it.
//
// IPv4 answers come from v4 only: the IPv6 database's IPv4-mapped and
// IPv4-compatible ranges are skipped, and the writer aliases ::ffff:0:0/96,
// 6to4 and Teredo to the IPv4 data, so an IPv4 peer reported by a
// dual-stack listener gets the same country. Legacy pseudo-codes and
// reserved networks (private, loopback, documentation ranges) are left
// out: they are not countries, and a lookup there answers "unknown".
func ConvertLegacy(out string, v4, v6 *LegacyDB) (ConvertStats, error) {
	var st ConvertStats
	if v4 == nil || v4.IPv6() {
		return st, errors.New("the IPv4 database (GeoIP.dat) is required and must be an IPv4 country edition")
	}
	if v6 != nil && !v6.IPv6() {
		return st, errors.New("the IPv6 database is an IPv4 edition (GeoIP.dat); want GeoIPv6.dat")
	}
	tree, err := mmdbwriter.New(mmdbwriter.Options{
		DatabaseType: ConvertedDatabaseType,
		Description:  map[string]string{"en": "Converted by kurz from " + describe(v4, v6)},
		Languages:    []string{"en"},
		RecordSize:   24,
		BuildEpoch:   buildEpoch(v4, v6),
	})
	if err != nil {
		return st, fmt.Errorf("new geoip tree: %w", err)
	}
	// IPv6 first, IPv4 last: the IPv4 data lives under ::/96, and nothing
	// from the IPv6 file may land there.
	if v6 != nil {
		if err := insertLegacy(tree, v6, &st, &st.IPv6); err != nil {
			return st, fmt.Errorf("IPv6 database: %w", err)
		}
	}
	if err := insertLegacy(tree, v4, &st, &st.IPv4); err != nil {
		return st, fmt.Errorf("IPv4 database: %w", err)
	}
	return st, writeTree(out, tree)
}

// ipv4Space holds the IPv6 ranges whose answers come from the IPv4 file.
var ipv4Space = []netip.Prefix{
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("::ffff:0:0/96"),
	netip.MustParsePrefix("2001::/32"), // Teredo
	netip.MustParsePrefix("2002::/16"), // 6to4
}

func insertLegacy(tree *mmdbwriter.Tree, db *LegacyDB, st *ConvertStats, written *int) error {
	return db.Walk(func(p netip.Prefix, code string) error {
		if isPseudoCode(code) {
			st.Pseudo++
			return nil
		}
		rec := mmdbtype.Map{"country": mmdbtype.Map{"iso_code": mmdbtype.String(code)}}
		pieces := []netip.Prefix{p}
		if db.IPv6() {
			pieces = splitAround(p, ipv4Space)
			if len(pieces) == 0 {
				st.Reserved++
			}
		}
		for _, q := range pieces {
			err := tree.Insert(toIPNet(q), rec)
			var reserved *mmdbwriter.ReservedNetworkError
			var aliased *mmdbwriter.AliasedNetworkError
			switch {
			case errors.As(err, &reserved), errors.As(err, &aliased):
				st.Reserved++
			case err != nil:
				return fmt.Errorf("insert %s: %w", q, err)
			default:
				*written++
			}
		}
		return nil
	})
}

// splitAround returns the parts of p outside every prefix of skip, as few
// prefixes as halving p allows. Inserting a network that contains ::/96
// would write into the writer's IPv4 subtree, so such a network is split.
func splitAround(p netip.Prefix, skip []netip.Prefix) []netip.Prefix {
	overlap := false
	for _, q := range skip {
		if q.Bits() <= p.Bits() && q.Contains(p.Addr()) {
			return nil // inside a skipped range
		}
		overlap = overlap || p.Overlaps(q)
	}
	if !overlap {
		return []netip.Prefix{p}
	}
	lo, hi := halves(p)
	return append(splitAround(lo, skip), splitAround(hi, skip)...)
}

// halves splits an IPv6 prefix shorter than /128 into its two children.
func halves(p netip.Prefix) (netip.Prefix, netip.Prefix) {
	bits := p.Bits() + 1
	lo := p.Addr().As16()
	hi := lo
	hi[p.Bits()/8] |= 1 << (7 - uint(p.Bits()%8))
	return netip.PrefixFrom(netip.AddrFrom16(lo), bits), netip.PrefixFrom(netip.AddrFrom16(hi), bits)
}

// isPseudoCode reports the legacy codes that name no country.
func isPseudoCode(code string) bool {
	switch code {
	case "AP", "EU", "A1", "A2", "O1":
		return true
	}
	return false
}

func toIPNet(p netip.Prefix) *net.IPNet {
	a := p.Addr()
	return &net.IPNet{IP: net.IP(a.AsSlice()), Mask: net.CIDRMask(p.Bits(), a.BitLen())}
}

func describe(v4, v6 *LegacyDB) string {
	parts := []string{"legacy GeoIP Country (" + orUnknown(v4.Info()) + ")"}
	if v6 != nil {
		parts = append(parts, "legacy GeoIP Country V6 ("+orUnknown(v6.Info())+")")
	}
	return strings.Join(parts, " and ")
}

func orUnknown(s string) string {
	if s == "" {
		return "no info string"
	}
	return s
}

// infoDate finds the build date in an info string ("GEO-106FREE 20191224
// Build 1 …").
var infoDate = regexp.MustCompile(`\b(\d{8})\b`)

// buildEpoch is the older build date of the two info strings, so the
// edge's start-up log shows how old the data is; 0 (the writer's "now")
// when neither names one.
func buildEpoch(dbs ...*LegacyDB) int64 {
	var oldest int64
	for _, db := range dbs {
		if db == nil {
			continue
		}
		m := infoDate.FindStringSubmatch(db.Info())
		if m == nil {
			continue
		}
		t, err := time.Parse("20060102", m[1])
		if err != nil {
			continue
		}
		if oldest == 0 || t.Unix() < oldest {
			oldest = t.Unix()
		}
	}
	return oldest
}

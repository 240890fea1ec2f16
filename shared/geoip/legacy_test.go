package geoip

import (
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rec encodes a 3-byte little-endian record.
func rec(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16)} }

// handBuilt is a two-node IPv4 tree written byte by byte from the format's
// description, independent of WriteLegacyTestDB: node 0 sends bit 0 to
// DE (0.0.0.0/1) and bit 1 to node 1, which sends bit 0 to US
// (128.0.0.0/2) and bit 1 to unknown (192.0.0.0/2). The edition byte 106
// is the pre-2003 spelling of edition 1.
func handBuilt() []byte {
	var b []byte
	b = append(b, rec(legacyCountryBegin+56)...) // DE
	b = append(b, rec(1)...)
	b = append(b, rec(legacyCountryBegin+225)...) // US
	b = append(b, rec(legacyCountryBegin)...)     // "--"
	b = append(b, 0, 0, 0)
	b = append(b, "GEO-106FREE 20191224 Build 1 hand"...)
	return append(b, 0xff, 0xff, 0xff, 106)
}

func TestLegacyHandBuilt(t *testing.T) {
	db, err := ParseLegacy(handBuilt())
	if err != nil {
		t.Fatal(err)
	}
	if db.IPv6() || db.Info() != "GEO-106FREE 20191224 Build 1 hand" {
		t.Errorf("IPv6 %v, info %q", db.IPv6(), db.Info())
	}
	tests := []struct {
		ip   string
		code string
		bits int
	}{
		{"1.2.3.4", "DE", 1},
		{"127.255.255.255", "DE", 1},
		{"::ffff:1.2.3.4", "DE", 1},
		{"128.0.0.1", "US", 2},
		{"191.255.0.1", "US", 2},
		{"192.0.0.1", "", 2},
		{"255.255.255.255", "", 2},
	}
	for _, tt := range tests {
		code, bits, err := db.Lookup(netip.MustParseAddr(tt.ip))
		if err != nil || code != tt.code || bits != tt.bits {
			t.Errorf("Lookup(%s) = %q /%d, %v; want %q /%d", tt.ip, code, bits, err, tt.code, tt.bits)
		}
	}
	if _, _, err := db.Lookup(netip.MustParseAddr("2001:db8::1")); err == nil {
		t.Error("IPv6 lookup in an IPv4 database: no error")
	}
	if got, want := walkAll(t, db), []string{"0.0.0.0/1 DE", "128.0.0.0/2 US"}; !slices.Equal(got, want) {
		t.Errorf("Walk = %q, want %q", got, want)
	}
}

func walkAll(t *testing.T, db *LegacyDB) []string {
	t.Helper()
	var got []string
	if err := db.Walk(func(p netip.Prefix, code string) error {
		got = append(got, p.String()+" "+code)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// legacyV4 and legacyV6 are the fixtures of the converter tests. Public
// ranges, so the writer's reserved networks do not swallow them, except
// 10.1.0.0/16, which checks that reserved space is left out.
var (
	legacyV4 = map[string]string{
		"1.0.0.0/8":       "AU",
		"1.2.3.0/24":      "DE",
		"1.2.3.128/25":    "--", // unknown inside a known range
		"8.8.8.0/24":      "US",
		"9.0.0.0/8":       "AP", // pseudo-code: not a country
		"10.1.0.0/16":     "FR", // reserved (private) space
		"81.2.69.0/24":    "GB",
		"193.99.144.0/24": "DE",
	}
	legacyV6 = map[string]string{
		"2a00::/12":          "DE",
		"2a00:1450::/32":     "IE",
		"2600::/12":          "US",
		"::ffff:1.2.3.0/120": "JP", // IPv4 answers come from the IPv4 file
		"::/64":              "CN", // contains ::/96, the writer's IPv4 subtree
		"2002::/16":          "BR", // 6to4: aliased to IPv4
		"fc00::/7":           "NL", // reserved (unique local)
	}
)

func writeLegacyFixtures(t *testing.T) (v4, v6 string) {
	t.Helper()
	dir := t.TempDir()
	v4, v6 = filepath.Join(dir, "GeoIP.dat"), filepath.Join(dir, "GeoIPv6.dat")
	if err := WriteLegacyTestDB(v4, false, legacyV4, "GEO-106FREE 20191224 Build 1 fixture"); err != nil {
		t.Fatal(err)
	}
	if err := WriteLegacyTestDB(v6, true, legacyV6, "GEO-106FREE 20200101 Build 1 fixture"); err != nil {
		t.Fatal(err)
	}
	return v4, v6
}

func TestLegacyFixtureLookup(t *testing.T) {
	p4, p6 := writeLegacyFixtures(t)
	v4, err := OpenLegacy(p4)
	if err != nil {
		t.Fatal(err)
	}
	v6, err := OpenLegacy(p6)
	if err != nil {
		t.Fatal(err)
	}
	if v4.IPv6() || !v6.IPv6() {
		t.Fatalf("IPv6(): v4 %v, v6 %v", v4.IPv6(), v6.IPv6())
	}
	tests := []struct {
		db   *LegacyDB
		ip   string
		code string
		bits int
	}{
		{v4, "1.1.1.1", "AU", 15}, // 1.2.0.0/16 splits 1.0.0.0/8
		{v4, "1.2.3.4", "DE", 25},
		{v4, "1.2.3.200", "", 25},
		{v4, "8.8.8.8", "US", 24},
		{v4, "9.9.9.9", "AP", 8},
		{v4, "193.99.144.80", "DE", 24},
		{v4, "127.0.0.1", "", 0},
		{v6, "2a01::1", "DE", 16},
		{v6, "2a00:1450:4001::1", "IE", 32},
		{v6, "::ffff:1.2.3.4", "JP", 120},
		{v6, "1.2.3.4", "JP", 120}, // an IPv4 address is looked up as ::ffff:a.b.c.d
		{v6, "2001:db9::1", "", 0},
	}
	for _, tt := range tests {
		code, bits, err := tt.db.Lookup(netip.MustParseAddr(tt.ip))
		if err != nil || code != tt.code || (tt.bits != 0 && bits != tt.bits) {
			t.Errorf("Lookup(%s) = %q /%d, %v; want %q /%d", tt.ip, code, bits, err, tt.code, tt.bits)
		}
	}
	got := walkAll(t, v4)
	want := []string{"1.0.0.0/15 AU", "1.2.0.0/23 AU", "1.2.2.0/24 AU", "1.2.3.0/25 DE"}
	if !slices.Equal(got[:4], want) {
		t.Errorf("Walk starts %q, want %q", got[:4], want)
	}
	for _, s := range got {
		if strings.HasSuffix(s, "--") {
			t.Errorf("Walk yielded an unknown network: %s", s)
		}
	}
}

func TestLegacyMalformed(t *testing.T) {
	good := handBuilt()
	pastEnd := slices.Clone(good)
	copy(pastEnd[3:6], rec(1000)) // node 0, bit 1 -> node 1000
	cycle := slices.Clone(good)
	copy(cycle[9:12], rec(0)) // node 1, bit 1 -> node 0
	city := slices.Clone(good)
	city[len(city)-1] = 2 // City edition
	large := slices.Clone(good)
	large[len(large)-1] = legacyLargeCountryEdition // the records now index past the table
	tests := []struct {
		name  string
		data  []byte
		parse string // error of ParseLegacy, or ""
		walk  string // error of Walk
	}{
		{"empty", nil, "too short", ""},
		{"not a country edition", city, "edition 2 is not a country database", ""},
		{"no edition byte", append(slices.Clone(good[:len(good)-1]), 0xff, 0xff, 0xff)[:len(good)], "no edition byte", ""},
		{"record past the end", pastEnd, "", "past the end"},
		{"cycle", cycle, "", "cycle"},
		{"index out of range", large, "", "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := ParseLegacy(tt.data)
			if tt.parse != "" {
				if err == nil || !strings.Contains(err.Error(), tt.parse) {
					t.Fatalf("ParseLegacy error %v, want %q", err, tt.parse)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			err = db.Walk(func(netip.Prefix, string) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tt.walk) {
				t.Fatalf("Walk error %v, want %q", err, tt.walk)
			}
		})
	}
}

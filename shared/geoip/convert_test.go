package geoip

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConvertLegacy converts the legacy fixtures and reads the result
// with the edge's reader (DB.Country).
func TestConvertLegacy(t *testing.T) {
	p4, p6 := writeLegacyFixtures(t)
	v4, err := OpenLegacy(p4)
	if err != nil {
		t.Fatal(err)
	}
	v6, err := OpenLegacy(p6)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "country.mmdb")
	st, err := ConvertLegacy(out, v4, v6)
	if err != nil {
		t.Fatal(err)
	}
	// 9.0.0.0/8 (AP) is the one pseudo-code leaf; reserved and IPv4-mapped
	// networks are counted, not written.
	if st.IPv4 == 0 || st.IPv6 == 0 || st.Pseudo != 1 || st.Reserved == 0 {
		t.Errorf("stats %+v", st)
	}
	db, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.DatabaseType() != ConvertedDatabaseType || !db.BuildTime().Equal(time.Date(2019, 12, 24, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("metadata: %q, %v", db.DatabaseType(), db.BuildTime())
	}
	tests := []struct {
		ip, want string
	}{
		{"1.1.1.1", "AU"},
		{"1.2.3.4", "DE"},
		{"1.2.3.200", ""},
		{"8.8.8.8", "US"},
		{"::ffff:8.8.8.8", "US"},  // how a dual-stack listener reports an IPv4 peer
		{"::ffff:1.2.3.4", "DE"},  // from the IPv4 file, not the IPv6 file's JP
		{"2002:102:304::1", "DE"}, // 6to4 of 1.2.3.4, aliased to IPv4
		{"9.9.9.9", ""},           // AP
		{"10.1.2.3", ""},          // reserved
		{"193.99.144.80", "DE"},
		{"81.2.69.142", "GB"},
		{"127.0.0.1", ""},
		{"2a01::1", "DE"},
		{"2a00:1450:4001::1", "IE"},
		{"2600:1f18::1", "US"},
		{"::1:0:0:1", "CN"}, // ::/64 outside the IPv4 subtree
		{"fd00::1", ""},     // reserved
		{"2001:db9::1", ""},
	}
	for _, tt := range tests {
		got := db.Country(netip.MustParseAddr(tt.ip))
		if s := strings.TrimRight(string(got[:]), "\x00"); s != tt.want {
			t.Errorf("Country(%s) = %q, want %q", tt.ip, s, tt.want)
		}
	}

	// The IPv6 file is optional; the IPv4 file is not, and the two must
	// not be swapped.
	if _, err := ConvertLegacy(filepath.Join(t.TempDir(), "v4.mmdb"), v4, nil); err != nil {
		t.Errorf("IPv4 only: %v", err)
	}
	for name, pair := range map[string][2]*LegacyDB{"no IPv4": {nil, v6}, "IPv6 as IPv4": {v6, nil}, "IPv4 as IPv6": {v4, v4}} {
		bad := filepath.Join(t.TempDir(), "bad.mmdb")
		if _, err := ConvertLegacy(bad, pair[0], pair[1]); err == nil {
			t.Errorf("%s: no error", name)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Errorf("%s: wrote a file anyway", name)
		}
	}
}

func TestSplitAround(t *testing.T) {
	skip := []netip.Prefix{netip.MustParsePrefix("::/96")}
	tests := []struct {
		in   string
		want int // number of pieces
	}{
		{"2a00::/12", 1},
		{"::/96", 0},
		{"::1.2.3.0/120", 0},
		{"::/95", 1},  // ::1:0:0/96 is left
		{"::/64", 32}, // every sibling from /65 to /96
	}
	for _, tt := range tests {
		got := splitAround(netip.MustParsePrefix(tt.in), skip)
		if len(got) != tt.want {
			t.Errorf("splitAround(%s) = %d pieces %v, want %d", tt.in, len(got), got, tt.want)
		}
		for _, p := range got {
			if p.Overlaps(skip[0]) {
				t.Errorf("splitAround(%s) piece %s overlaps %s", tt.in, p, skip[0])
			}
		}
	}
}

// TestConvertDebianDatabase converts Debian's geoip-database when it is
// installed (make run installs it) and checks well-known addresses.
// TestConvertLegacy covers the converter without it.
func TestConvertDebianDatabase(t *testing.T) {
	const p4, p6 = "/usr/share/GeoIP/GeoIP.dat", "/usr/share/GeoIP/GeoIPv6.dat"
	if _, err := os.Stat(p4); err != nil {
		t.Skipf("%s not installed (Debian package geoip-database); TestConvertLegacy covers the converter", p4)
	}
	v4, err := OpenLegacy(p4)
	if err != nil {
		t.Fatal(err)
	}
	var v6 *LegacyDB
	if _, err := os.Stat(p6); err == nil {
		if v6, err = OpenLegacy(p6); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "country.mmdb")
	st, err := ConvertLegacy(out, v4, v6)
	if err != nil {
		t.Fatal(err)
	}
	if st.IPv4 < 100000 {
		t.Errorf("only %d IPv4 networks: %+v", st.IPv4, st)
	}
	db, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Long-lived assignments: Google Public DNS, heise.de, Cloudflare's
	// 1.1.1.1 (APNIC research, registered in Australia).
	tests := map[string]string{
		"8.8.8.8":        "US",
		"::ffff:8.8.8.8": "US",
		"193.99.144.80":  "DE",
		"1.1.1.1":        "AU",
		"10.1.2.3":       "",
		"127.0.0.1":      "",
		"192.168.178.1":  "",
	}
	if v6 != nil {
		tests["2001:4860:4860::8888"] = "US"
	}
	for ip, want := range tests {
		legacy, _, err := v4.Lookup(netip.MustParseAddr(ip).Unmap())
		if netip.MustParseAddr(ip).Is6() && !netip.MustParseAddr(ip).Is4In6() {
			legacy, _, err = v6.Lookup(netip.MustParseAddr(ip))
		}
		got := db.Country(netip.MustParseAddr(ip))
		if s := strings.TrimRight(string(got[:]), "\x00"); s != want || err != nil || legacy != want {
			t.Errorf("%s: converted %q, legacy %q (%v), want %q", ip, s, legacy, err, want)
		}
	}
}

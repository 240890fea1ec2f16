package geoip

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// testNetworks uses the documentation ranges; 198.51.100.128/25 overrides
// the /24 it lies in, and "us" checks upper-casing.
var testNetworks = map[string]string{
	"192.0.2.0/24":      "DE",
	"198.51.100.0/24":   "us",
	"198.51.100.128/25": "FR",
	"2001:db8::/32":     "JP",
	"2001:db8:1::/48":   "GB",
}

func openTestDB(t testing.TB, networks map[string]string) *DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.mmdb")
	if err := WriteTestDB(path, networks); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestCountry(t *testing.T) {
	db := openTestDB(t, testNetworks)
	tests := []struct {
		ip   string
		want string
	}{
		{"192.0.2.1", "DE"},
		{"192.0.2.255", "DE"},
		{"::ffff:192.0.2.1", "DE"}, // IPv4-mapped, as a dual-stack listener reports it
		{"198.51.100.1", "US"},
		{"198.51.100.127", "US"},
		{"198.51.100.128", "FR"},
		{"198.51.100.254", "FR"},
		{"2001:db8::1", "JP"},
		{"2001:db8:ffff::1", "JP"},
		{"2001:db8:1::5", "GB"},
		{"2001:db8:1::5%eth0", "GB"}, // zones are ignored
		{"203.0.113.7", ""},
		{"10.0.0.1", ""},
		{"127.0.0.1", ""},
		{"2001:db9::1", ""},
		{"::1", ""},
	}
	for _, tt := range tests {
		got := db.Country(netip.MustParseAddr(tt.ip))
		want := [2]byte{}
		if tt.want != "" {
			want = [2]byte{tt.want[0], tt.want[1]}
		}
		if got != want {
			t.Errorf("Country(%s) = %q, want %q", tt.ip, got[:], tt.want)
		}
	}
	if got := db.Country(netip.Addr{}); got != ([2]byte{}) {
		t.Errorf("Country(invalid) = %q", got[:])
	}
	var none *DB
	if got := none.Country(netip.MustParseAddr("192.0.2.1")); got != ([2]byte{}) {
		t.Errorf("nil DB Country = %q", got[:])
	}
	if db.DatabaseType() != "GeoLite2-Country" || db.BuildTime().IsZero() {
		t.Errorf("metadata: %q, %v", db.DatabaseType(), db.BuildTime())
	}
}

// writeRecords builds a database with arbitrary records, for schemas
// WriteTestDB does not produce.
func writeRecords(t *testing.T, recs map[string]mmdbtype.Map) *DB {
	t.Helper()
	tree, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: "GeoIP2-City", RecordSize: 24, IncludeReservedNetworks: true})
	if err != nil {
		t.Fatal(err)
	}
	for cidr, rec := range recs {
		_, n, err := net.ParseCIDR(cidr)
		if err != nil {
			t.Fatal(err)
		}
		if err := tree.Insert(n, rec); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "city.mmdb")
	if err := writeTree(path, tree); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestCountryRecordShapes(t *testing.T) {
	iso := func(code string) mmdbtype.Map { return mmdbtype.Map{"iso_code": mmdbtype.String(code)} }
	db := writeRecords(t, map[string]mmdbtype.Map{
		// A City record: the code sits among names and other fields.
		"192.0.2.0/26": {
			"city":               mmdbtype.Map{"names": mmdbtype.Map{"en": mmdbtype.String("Berlin")}},
			"continent":          mmdbtype.Map{"code": mmdbtype.String("EU")},
			"country":            mmdbtype.Map{"iso_code": mmdbtype.String("DE"), "names": mmdbtype.Map{"en": mmdbtype.String("Germany")}},
			"registered_country": iso("NL"),
		},
		// Continent-wide network: only the registered country is known.
		"192.0.2.64/26": {"continent": mmdbtype.Map{"code": mmdbtype.String("EU")}, "registered_country": iso("SE")},
		// Unusable values.
		"192.0.2.128/27": {"country": iso("DEU")},
		"192.0.2.160/27": {"country": iso("1!")},
		"192.0.2.192/27": {"country": mmdbtype.String("DE")}, // not a map
		"192.0.2.224/27": {"continent": mmdbtype.Map{"code": mmdbtype.String("AN")}},
	})
	tests := []struct{ ip, want string }{
		{"192.0.2.1", "DE"},
		{"192.0.2.65", "SE"},
		{"192.0.2.129", ""},
		{"192.0.2.161", ""},
		{"192.0.2.193", ""},
		{"192.0.2.225", ""},
	}
	for _, tt := range tests {
		got := db.Country(netip.MustParseAddr(tt.ip))
		if string(strings.TrimRight(string(got[:]), "\x00")) != tt.want {
			t.Errorf("Country(%s) = %q, want %q", tt.ip, got[:], tt.want)
		}
	}
}

func TestCountryAfterClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.mmdb")
	if err := WriteTestDB(path, testNetworks); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if got := db.Country(netip.MustParseAddr("192.0.2.1")); got != ([2]byte{}) {
		t.Errorf("Country after Close = %q", got[:])
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.mmdb")
	garbage := filepath.Join(dir, "garbage.mmdb")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "missing.mmdb"), empty, garbage, dir} {
		db, err := Open(p)
		if err == nil {
			db.Close()
			t.Errorf("Open(%s) succeeded", p)
			continue
		}
		if !strings.Contains(err.Error(), "open geoip database") || !strings.Contains(err.Error(), p) {
			t.Errorf("Open(%s) error lacks context: %v", p, err)
		}
	}
}

func TestWriteTestDBErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		networks map[string]string
		path     string
		want     string
	}{
		{"bad cidr", map[string]string{"192.0.2.1": "DE"}, filepath.Join(dir, "a.mmdb"), `network "192.0.2.1"`},
		{"bad code", map[string]string{"192.0.2.0/24": "DEU"}, filepath.Join(dir, "b.mmdb"), `country code "DEU"`},
		{"missing dir", map[string]string{"192.0.2.0/24": "DE"}, filepath.Join(dir, "no", "c.mmdb"), "create geoip database"},
	}
	for _, tt := range tests {
		err := WriteTestDB(tt.path, tt.networks)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to mention %s", tt.name, err, tt.want)
		}
		if _, statErr := os.Stat(tt.path); statErr == nil {
			t.Errorf("%s: file written despite the error", tt.name)
		}
	}
	// An empty map is a valid (empty) database.
	path := filepath.Join(dir, "empty.mmdb")
	if err := WriteTestDB(path, nil); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := db.Country(netip.MustParseAddr("192.0.2.1")); got != ([2]byte{}) {
		t.Errorf("empty DB Country = %q", got[:])
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func BenchmarkCountry(b *testing.B) {
	db := openTestDB(b, testNetworks)
	for _, c := range []struct{ name, ip string }{
		{"v4", "198.51.100.200"},
		{"v4mapped", "::ffff:192.0.2.1"},
		{"v6", "2001:db8:1::5"},
		{"miss", "203.0.113.7"},
	} {
		ip := netip.MustParseAddr(c.ip)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = db.Country(ip)
			}
		})
	}
	b.Run("parallel", func(b *testing.B) {
		ip := netip.MustParseAddr("198.51.100.200")
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				_ = db.Country(ip)
			}
		})
	})
}

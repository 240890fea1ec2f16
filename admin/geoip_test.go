package main

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kurz/shared/geoip"
)

// TestGeoIPConvert runs `admin geoip convert` (what make run does with
// Debian's geoip-database) on legacy fixtures and reads the result with
// the edge's reader.
func TestGeoIPConvert(t *testing.T) {
	dir := t.TempDir()
	v4, v6 := filepath.Join(dir, "GeoIP.dat"), filepath.Join(dir, "GeoIPv6.dat")
	if err := geoip.WriteLegacyTestDB(v4, false, map[string]string{"81.2.69.0/24": "GB", "8.8.8.0/24": "US"}, "GEO-106FREE 20191224 Build 1"); err != nil {
		t.Fatal(err)
	}
	if err := geoip.WriteLegacyTestDB(v6, true, map[string]string{"2a00::/12": "DE"}, "GEO-106FREE 20191224 Build 1"); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "country.mmdb")
	missing := filepath.Join(dir, "nope.dat")
	tests := []struct {
		name   string
		args   []string
		code   int
		output string // prefix of stdout (code 0) or substring of stderr
	}{
		{"both", []string{"--v4", v4, "--v6", v6, "--out", out}, 0, "wrote " + out + ": 2 IPv4 and 1 IPv6 networks"},
		{"IPv4 only", []string{"--v4", v4, "--out", filepath.Join(dir, "v4.mmdb")}, 0, "wrote "},
		{"no --v4", []string{"--v6", v6, "--out", out}, 2, "usage: admin geoip convert"},
		{"no --out", []string{"--v4", v4}, 2, "usage: admin geoip convert"},
		{"unknown flag", []string{"--v4", v4, "--out", out, "--bogus"}, 2, "bogus"},
		{"missing file", []string{"--v4", missing, "--out", out}, 1, "no such file"},
		{"swapped", []string{"--v4", v6, "--v6", v4, "--out", filepath.Join(dir, "bad.mmdb")}, 1, "IPv4 country edition"},
		{"not a database", []string{"--v4", "geoip_test.go", "--out", filepath.Join(dir, "bad.mmdb")}, 1, "geoip convert:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(append([]string{"geoip", "convert"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tt.code, stdout, stderr)
			}
			if tt.code == 0 && !strings.HasPrefix(stdout, tt.output) || tt.code != 0 && !strings.Contains(stderr, tt.output) {
				t.Errorf("stdout %q stderr %q, want %q", stdout, stderr, tt.output)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.mmdb")); err == nil {
		t.Error("a failed conversion left a file behind")
	}
	if code, _, stderr := runCmd("geoip", "export"); code != 2 || !strings.Contains(stderr, "usage: admin geoip convert") {
		t.Errorf("geoip export: exit %d, stderr %q", code, stderr)
	}

	db, err := geoip.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for ip, want := range map[string]string{"81.2.69.142": "GB", "::ffff:8.8.8.8": "US", "2a01:4f8::1": "DE", "9.9.9.9": "\x00\x00"} {
		if got := db.Country(netip.MustParseAddr(ip)); string(got[:]) != want {
			t.Errorf("Country(%s) = %q, want %q", ip, got[:], want)
		}
	}
}

package geoip

import (
	"cmp"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// WriteTestDB writes a small GeoLite2-Country-shaped database to path,
// mapping each CIDR ("192.0.2.0/24", "2001:db8::/32") to a two-letter
// country code. It exists for tests of this and other packages (edge,
// click pipeline), which need a real .mmdb without shipping one.
//
// Reserved ranges are allowed, so the documentation networks 192.0.2.0/24,
// 198.51.100.0/24, 203.0.113.0/24 and 2001:db8::/32 can be used. Networks
// are inserted broadest first, so a more specific CIDR overrides the range
// it lies in whatever the map order. Codes are stored as given (tests may
// use lower case to check that Country upper-cases them).
func WriteTestDB(path string, networks map[string]string) error {
	tree, err := mmdbwriter.New(mmdbwriter.Options{
		DatabaseType:            "GeoLite2-Country",
		Description:             map[string]string{"en": "kurz test database"},
		Languages:               []string{"en"},
		RecordSize:              24,
		IncludeReservedNetworks: true,
	})
	if err != nil {
		return fmt.Errorf("new geoip test tree: %w", err)
	}
	type entry struct {
		net  *net.IPNet
		code string
	}
	entries := make([]entry, 0, len(networks))
	for cidr, code := range networks {
		_, n, err := net.ParseCIDR(cidr)
		if err != nil {
			return fmt.Errorf("geoip test network %q: %w", cidr, err)
		}
		if len(code) != 2 {
			return fmt.Errorf("geoip test network %q: country code %q is not two letters", cidr, code)
		}
		entries = append(entries, entry{n, code})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		ao, _ := a.net.Mask.Size()
		bo, _ := b.net.Mask.Size()
		return cmp.Or(cmp.Compare(ao, bo), cmp.Compare(a.net.String(), b.net.String()))
	})
	for _, e := range entries {
		rec := mmdbtype.Map{"country": mmdbtype.Map{"iso_code": mmdbtype.String(e.code)}}
		if err := tree.Insert(e.net, rec); err != nil {
			return fmt.Errorf("insert geoip test network %s: %w", e.net, err)
		}
	}
	return writeTree(path, tree)
}

// writeTree writes through a temporary file and renames it into place, so
// a reader never maps a half-written database.
func writeTree(path string, tree *mmdbwriter.Tree) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".geoip-*.mmdb")
	if err != nil {
		return fmt.Errorf("create geoip database: %w", err)
	}
	defer os.Remove(f.Name()) // no-op after a successful rename
	if _, err := tree.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("write geoip database: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write geoip database: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write geoip database: %w", err)
	}
	return nil
}

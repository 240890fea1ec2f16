package geoip

import (
	"cmp"
	"fmt"
	"net/netip"
	"os"
	"slices"
)

// WriteLegacyTestDB writes a small legacy GeoIP Country database (.dat, the
// format of Debian's geoip-database) to path: an IPv6 edition when ipv6 is
// set, else IPv4. networks maps CIDRs to codes of the legacy country table
// ("--" marks a range unknown); addresses outside them are unknown. info
// is the description stored before the structure info. It exists for
// tests of the converter (here and in `admin geoip convert`), which must
// not depend on the Debian package being installed.
func WriteLegacyTestDB(path string, ipv6 bool, networks map[string]string, info string) error {
	bits := 32
	edition := byte(legacyCountryEdition)
	if ipv6 {
		bits, edition = 128, legacyCountryEditionV6
	}
	type entry struct {
		p   netip.Prefix
		val uint32
	}
	entries := make([]entry, 0, len(networks))
	for cidr, code := range networks {
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			return fmt.Errorf("legacy test network %q: %w", cidr, err)
		}
		if p.Addr().BitLen() != bits || p.Bits() == 0 {
			return fmt.Errorf("legacy test network %q: want a non-empty IPv%d prefix", cidr, map[int]int{32: 4, 128: 6}[bits])
		}
		i := slices.Index(legacyCountryCodes[:], code)
		if i < 0 {
			return fmt.Errorf("legacy test network %q: %q is not in the legacy country table", cidr, code)
		}
		entries = append(entries, entry{p.Masked(), uint32(i)})
	}
	// Broadest first, so a more specific network overrides the range it
	// lies in whatever the map order.
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.p.Bits(), b.p.Bits()), a.p.Addr().Compare(b.p.Addr()))
	})
	root := &legacyTestNode{}
	for _, e := range entries {
		root.insert(e.p, e.val)
	}
	data := root.encode()
	data = append(data, 0, 0, 0)
	data = append(data, info...)
	data = append(data, 0xff, 0xff, 0xff, edition)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write legacy test database: %w", err)
	}
	return nil
}

// legacyTestNode is a node of the tree being built: each side is either a
// child node or a leaf value (an index into legacyCountryCodes).
type legacyTestNode struct {
	kids [2]*legacyTestNode
	vals [2]uint32
}

func (n *legacyTestNode) insert(p netip.Prefix, val uint32) {
	a := p.Addr().As16()
	if p.Addr().Is4() {
		a4 := p.Addr().As4()
		a = [16]byte{}
		copy(a[:], a4[:])
	}
	for depth := 0; ; depth++ {
		side := bitAt(a, depth)
		if depth == p.Bits()-1 {
			n.kids[side], n.vals[side] = nil, val
			return
		}
		if n.kids[side] == nil {
			v := n.vals[side]
			n.kids[side] = &legacyTestNode{vals: [2]uint32{v, v}}
		}
		n = n.kids[side]
	}
}

// encode numbers the nodes breadth-first (the root is node 0) and writes
// each as two 3-byte little-endian records.
func (n *legacyTestNode) encode() []byte {
	order := []*legacyTestNode{n}
	index := map[*legacyTestNode]uint32{n: 0}
	for i := 0; i < len(order); i++ {
		for _, k := range order[i].kids {
			if k != nil {
				index[k] = uint32(len(order))
				order = append(order, k)
			}
		}
	}
	out := make([]byte, 0, len(order)*legacyNodeLen)
	for _, node := range order {
		for side := range 2 {
			v := legacyCountryBegin + node.vals[side]
			if k := node.kids[side]; k != nil {
				v = index[k]
			}
			out = append(out, byte(v), byte(v>>8), byte(v>>16))
		}
	}
	return out
}

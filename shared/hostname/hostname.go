// Package hostname compares host names the way a browser resolves them.
// A URL may spell one host many ways: upper case, a trailing dot, the
// scheme's default port, full-width letters (ｅｘａｍｐｌｅ．ｃｏｍ), an
// ideographic full stop, Unicode instead of punycode. Browsers map all of
// them to one ASCII name (UTS #46, as the WHATWG URL standard does) before
// they connect, so a check such as "does this URL lead back to us" must
// compare those mapped names, never the raw spelling.
package hostname

import (
	"strings"

	"golang.org/x/net/idna"

	"kurz/shared/link"
)

// lookup maps a name as browsers do for a lookup: UTS #46 mapping
// (case, width and compatibility folding) without the transitional ß/ς
// rules and without STD3's ASCII restrictions (browsers accept '_').
var lookup = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false))

// Key is host (a URL's host: name[:port], an IPv6 literal in brackets)
// in the one form under which browsers treat it as the same origin host:
// the name mapped to lower-case ASCII (punycode for international names)
// without a trailing dot, and the port read as a number (a URL may spell
// it with leading zeros, or leave it empty for the default) unless it is
// 80 or 443. Either is dropped whatever the scheme: a URL naming one of
// them reaches the same listener as one naming none, and for a loop check
// calling too many URLs ours is safe, too few is not. An unmappable name
// is still returned lower case: it can then only equal a name that is
// itself invalid.
func Key(host string) string {
	name, port := Split(host)
	return Name(name) + Port(port)
}

// Port is ":port" (as Split returns it) with the number in its shortest
// form, or "" for none, an empty port or a default one (80, 443). A port
// that is not all digits (no valid URL has one) is kept as written.
func Port(port string) string {
	digits := strings.TrimPrefix(port, ":")
	if digits == "" {
		return ""
	}
	for i := 0; i < len(digits); i++ {
		if c := digits[i]; c < '0' || c > '9' {
			return port
		}
	}
	// Trimming zeros, not strconv, so that no length overflows.
	digits = strings.TrimLeft(digits, "0")
	switch digits {
	case "":
		return ":0"
	case "80", "443":
		return ""
	}
	return ":" + digits
}

// Name is the mapped form of a host name without a port (see Key).
func Name(name string) string {
	if strings.HasPrefix(name, "[") { // IPv6 literal: only case varies
		return strings.ToLower(name)
	}
	ascii := true
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.TrimRight(strings.ToLower(name), ".")
	}
	// On error the profile still returns the name mapped as far as it
	// got, which is what a browser would look up, if anything.
	mapped, _ := lookup.ToASCII(name)
	return strings.TrimRight(strings.ToLower(mapped), ".")
}

// NameOf is Name of host's name part, dropping any port: the key under
// which the edge finds a branded domain when no domain claims the port.
func NameOf(host string) string {
	name, _ := Split(host)
	return Name(name)
}

// Split splits host into its name and ":port" ("" when there is none);
// IPv6 literals keep their brackets ("[::1]:80" → "[::1]", ":80").
func Split(host string) (name, port string) { return link.SplitHost(host) }

package link

import (
	"errors"
	"strings"
)

// Alias rules. Aliases are case-sensitive: "Abc" and "abc" are two links.
const (
	// RandomAliasLen is the length random aliases start at.
	RandomAliasLen = 5
	// randomCollisionsPerLen is how many collisions at one length make the
	// generator try one character more: 62^5 ≈ 9·10^8 aliases per host, so
	// three misses in a row mean that length is getting crowded.
	randomCollisionsPerLen = 3
	// MaxRandomAliasAttempts bounds the retries of one insert (lengths 5…8).
	MaxRandomAliasAttempts = 12

	MinCustomAliasLen = 3
	MaxCustomAliasLen = 64
)

// Custom alias validation errors; callers prefix the field name.
var (
	ErrAliasLength   = errors.New("must be 3 to 64 characters")
	ErrAliasChars    = errors.New("may contain only letters, digits, '-' and '_'")
	ErrAliasReserved = errors.New("is reserved by the service")
)

// reserved are first path segments the edge serves itself (or may serve
// later); an alias equal to one of them would be unreachable or would
// shadow a route. Compared case-insensitively so "API" cannot pose as the
// API either.
var reservedAliases = map[string]bool{
	"api": true, "r": true, "u": true, "q": true, "qr": true, "p": true,
	"healthz": true, "readyz": true, "livez": true, "metrics": true, "debug": true,
	"static": true, "assets": true, "public": true, "favicon.ico": true, "robots.txt": true,
	"sitemap.xml": true, "humans.txt": true, "security.txt": true, ".well-known": true,
	"apple-touch-icon.png": true, "admin": true, "login": true, "logout": true,
	"register": true, "signup": true, "signin": true, "account": true, "dashboard": true,
	"docs": true, "help": true, "bio": true, "password": true, "unlock": true,
	"splash": true, "overlay": true, "cta": true, "404": true,
}

// IsReserved reports whether s (compared case-insensitively) is a path the
// service keeps for itself; neither custom nor random aliases may use it.
func IsReserved(s string) bool {
	if len(s) > 32 { // longer than every reserved word: skip the lower-casing
		return false
	}
	return reservedAliases[strings.ToLower(s)]
}

// ValidCustomAlias checks a user-chosen alias: 3–64 characters of
// [A-Za-z0-9_-] and not reserved.
func ValidCustomAlias(s string) error {
	if len(s) < MinCustomAliasLen || len(s) > MaxCustomAliasLen {
		return ErrAliasLength
	}
	for i := 0; i < len(s); i++ {
		if !isAliasChar(s[i]) {
			return ErrAliasChars
		}
	}
	if IsReserved(s) {
		return ErrAliasReserved
	}
	return nil
}

// IsAliasSyntax reports whether s could be any alias (random or custom):
// 1–64 characters of [A-Za-z0-9_-]. The edge uses it to reject garbage
// paths before a cache lookup.
func IsAliasSyntax(s string) bool {
	if len(s) == 0 || len(s) > MaxCustomAliasLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAliasChar(s[i]) {
			return false
		}
	}
	return true
}

func isAliasChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// RandomAliasLenFor is the length of the random alias tried at attempt
// (0-based): RandomAliasLen for the first three attempts, one more for each
// further three, so a crowded length costs at most three round trips.
func RandomAliasLenFor(attempt int) int {
	return RandomAliasLen + attempt/randomCollisionsPerLen
}

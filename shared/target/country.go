package target

import (
	"fmt"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// country is one row of the generated countryTable.
type country struct {
	code string // ISO 3166-1 alpha-2, upper case
	name string // canonical lowercase English name, the API's details.location key
	cldr string // CLDR English display name, accepted as input too
}

// countryAliases are common English names that are neither the canonical
// name nor the CLDR name. Keys are in normalizeCountryName form.
var countryAliases = map[string]string{
	"usa": "US", "united states of america": "US", "america": "US", "us of a": "US",
	"uk": "GB", "great britain": "GB", "britain": "GB", "england": "GB",
	"scotland": "GB", "wales": "GB", "northern ireland": "GB",
	"holland": "NL",
	"korea":   "KR", "republic of korea": "KR",
	"dprk": "KP", "democratic peoples republic of korea": "KP",
	"russian federation": "RU",
	"viet nam":           "VN",
	"czech republic":     "CZ",
	"ivory coast":        "CI",
	"turkiye":            "TR", "republic of turkiye": "TR",
	"burma":      "MM",
	"east timor": "TL",
	"vatican":    "VA", "holy see": "VA",
	"drc": "CD", "dr congo": "CD", "democratic republic of congo": "CD", "congo drc": "CD",
	"republic of congo": "CG",
	"uae":               "AE", "emirates": "AE",
	"macau":                    "MO",
	"state of palestine":       "PS",
	"cabo verde":               "CV",
	"syrian arab republic":     "SY",
	"islamic republic of iran": "IR",
	"republic of moldova":      "MD",
	"brunei darussalam":        "BN",
	"lao pdr":                  "LA", "lao peoples democratic republic": "LA",
	"china": "CN", "prc": "CN", "peoples republic of china": "CN",
	"pitcairn":      "PN",
	"cocos islands": "CC", "keeling islands": "CC",
	"federated states of micronesia": "FM",
	"swaziland":                      "SZ",
	"macedonia":                      "MK",
}

// CountryCode resolves user input to an ISO 3166-1 alpha-2 code, upper case.
// It accepts a code in any case ("de", "DE"), the canonical name
// ("united states"), the CLDR display name ("St. Kitts & Nevis",
// "Côte d’Ivoire") and common aliases ("usa", "uk", "ivory coast"); names
// are matched ignoring case, accents, punctuation and a leading "the".
// Deprecated or reserved codes (SU, YU, EU, UK) are not countries; "uk" is
// accepted as an alias of GB.
func CountryCode(input string) (code string, ok bool) {
	s := strings.TrimSpace(input)
	if len(s) == 2 && isLetter(s[0]) && isLetter(s[1]) {
		if i, found := countryIndex(upper(s[0]), upper(s[1])); found {
			return countryTable[i].code, true
		}
	}
	code, ok = countryLookup().byName[normalizeCountryName(s)]
	return code, ok
}

// CountryName returns the lowercase English name of an ISO 3166-1 alpha-2
// code in either case ("DE" -> "germany", "us" -> "united states"), or ""
// when the code is not a country. The names are the API's details.location
// keys and never change for a code once published.
func CountryName(code string) string {
	if len(code) != 2 {
		return ""
	}
	if i, ok := countryIndex(upper(code[0]), upper(code[1])); ok {
		return countryTable[i].name
	}
	return ""
}

// IsCountry reports whether c (upper case, as in Facts.Country) is an
// assigned ISO 3166-1 alpha-2 code. It does not allocate, so the edge can
// vet a country taken from a trusted proxy header ("XX" and "T1" are not
// countries).
func IsCountry(c [2]byte) bool {
	_, ok := countryIndex(c[0], c[1])
	return ok
}

// NormalizeGeo returns the canonical key of a geotarget location: its
// upper-case ISO code. The error wraps ErrUnknownCountry.
func NormalizeGeo(key string) (string, error) {
	code, ok := CountryCode(key)
	if !ok {
		return "", fmt.Errorf("%w %q", ErrUnknownCountry, key)
	}
	return code, nil
}

// countryIndex finds an upper-case code in the table. The edge asks once
// per counted visit (the trusted proxy's country header), and a binary
// search through a comparison closure cost ~1% of its CPU in a profile of
// cache-hit redirects; a slot per letter pair answers with one load.
func countryIndex(a, b byte) (int, bool) {
	a, b = a-'A', b-'A'
	if a >= 26 || b >= 26 {
		return 0, false
	}
	i := countrySlots[int(a)*26+int(b)]
	return int(i) - 1, i != 0
}

// countrySlots maps a letter pair (row, column: first, second letter) to
// its index in countryTable plus one; 0 is no country. Filled once at
// start-up and only read after that.
var countrySlots = func() (slots [26 * 26]uint8) {
	if len(countryTable) >= 255 {
		panic("target: countryTable outgrew uint8 slots")
	}
	for i, c := range countryTable {
		slots[int(c.code[0]-'A')*26+int(c.code[1]-'A')] = uint8(i + 1)
	}
	return slots
}()

type countryNames struct {
	byName    map[string]string // normalised name -> code
	conflicts []string          // names claimed by two codes; must stay empty (tested)
}

// countryLookup builds the name index on first use: only the admin API
// resolves names, so the edge never pays for it.
var countryLookup = sync.OnceValue(func() *countryNames {
	n := &countryNames{byName: make(map[string]string, 3*len(countryTable))}
	add := func(name, code string) {
		k := normalizeCountryName(name)
		if prev, ok := n.byName[k]; ok && prev != code {
			n.conflicts = append(n.conflicts, fmt.Sprintf("%q: %s and %s", k, prev, code))
			return
		}
		n.byName[k] = code
	}
	for _, c := range countryTable {
		add(c.name, c.code)
		add(c.cldr, c.code)
	}
	for alias, code := range countryAliases {
		add(alias, code)
	}
	return n
})

// normalizeCountryName folds case, accents and punctuation so that
// "Côte d’Ivoire", "cote d'ivoire" and "COTE DIVOIRE" compare equal, maps
// the word "st" to "saint" and drops a leading "the".
func normalizeCountryName(s string) string {
	s = strings.ToLower(foldAccents(s))
	s = strings.NewReplacer(
		"’", "", "'", "", "`", "", ".", "",
		"&", " and ", "(", " ", ")", " ", ",", " ", "-", " ", "/", " ", "_", " ",
	).Replace(s)
	words := strings.Fields(s)
	if len(words) > 1 && words[0] == "the" {
		words = words[1:]
	}
	for i, w := range words {
		if w == "st" {
			words[i] = "saint"
		}
	}
	return strings.Join(words, " ")
}

// foldAccents removes combining marks after canonical decomposition
// ("Réunion" -> "Reunion", "Åland" -> "Aland").
func foldAccents(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		return s
	}
	return out
}

func isLetter(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }

// upper maps an ASCII lower-case letter to upper case and leaves other
// bytes alone.
func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// lower maps an ASCII upper-case letter to lower case and leaves other
// bytes alone.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

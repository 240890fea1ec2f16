package target

import (
	"errors"
	"testing"
)

func TestCountryCode(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"DE", "DE"},
		{"de", "DE"},
		{" dE ", "DE"},
		{"germany", "DE"},
		{"Germany", "DE"},
		{"GERMANY", "DE"},
		{"United States", "US"},
		{"united  states", "US"},
		{"usa", "US"},
		{"USA", "US"},
		{"United States of America", "US"},
		{"uk", "GB"},
		{"UK", "GB"},
		{"United Kingdom", "GB"},
		{"great britain", "GB"},
		{"england", "GB"},
		{"the netherlands", "NL"},
		{"Netherlands", "NL"},
		{"holland", "NL"},
		{"Côte d’Ivoire", "CI"},
		{"cote d'ivoire", "CI"},
		{"Ivory Coast", "CI"},
		{"Curaçao", "CW"},
		{"curacao", "CW"},
		{"Réunion", "RE"},
		{"Åland Islands", "AX"},
		{"St. Kitts & Nevis", "KN"},
		{"saint kitts and nevis", "KN"},
		{"St Lucia", "LC"},
		{"Bosnia and Herzegovina", "BA"},
		{"bosnia & herzegovina", "BA"},
		{"Hong Kong", "HK"},
		{"Hong Kong SAR China", "HK"},
		{"macau", "MO"},
		{"Congo - Kinshasa", "CD"},
		{"DRC", "CD"},
		{"Congo - Brazzaville", "CG"},
		{"Myanmar (Burma)", "MM"},
		{"burma", "MM"},
		{"South Korea", "KR"},
		{"North Korea", "KP"},
		{"russia", "RU"},
		{"Russian Federation", "RU"},
		{"Czechia", "CZ"},
		{"czech republic", "CZ"},
		{"Türkiye", "TR"},
		{"turkey", "TR"},
		{"Eswatini", "SZ"},
		{"Swaziland", "SZ"},
		{"North Macedonia", "MK"},
		{"The Bahamas", "BS"},
		{"Gambia", "GM"},
		{"kosovo", "XK"},
		{"XK", "XK"},
		{"Timor-Leste", "TL"},
		{"Guinea-Bissau", "GW"},
		{"UAE", "AE"},
		{"Vatican City", "VA"},
		{"u.s. virgin islands", "VI"},
		{"us virgin islands", "VI"},
	}
	for _, tt := range tests {
		got, ok := CountryCode(tt.in)
		if !ok || got != tt.want {
			t.Errorf("CountryCode(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

func TestCountryCodeRejects(t *testing.T) {
	for _, in := range []string{"", " ", "atlantis", "EU", "SU", "YU", "XX", "ZZ", "T1", "A1", "D", "DEU", "the", "congo", "1", "\xff\xfe"} {
		if got, ok := CountryCode(in); ok {
			t.Errorf("CountryCode(%q) = %q, want not ok", in, got)
		}
	}
	_, err := NormalizeGeo("atlantis")
	if !errors.Is(err, ErrUnknownCountry) || err.Error() != `unknown country "atlantis"` {
		t.Errorf("NormalizeGeo error = %v", err)
	}
}

func TestCountryName(t *testing.T) {
	tests := []struct{ code, want string }{
		{"DE", "germany"},
		{"de", "germany"},
		{"US", "united states"},
		{"GB", "united kingdom"},
		{"CI", "cote d'ivoire"},
		{"KN", "saint kitts and nevis"},
		{"HK", "hong kong"},
		{"XK", "kosovo"},
		{"", ""},
		{"XX", ""},
		{"DEU", ""},
	}
	for _, tt := range tests {
		if got := CountryName(tt.code); got != tt.want {
			t.Errorf("CountryName(%q) = %q, want %q", tt.code, got, tt.want)
		}
	}
}

// Every country round-trips code -> name -> code, names are unique, and
// no alias or CLDR name is claimed by two countries.
func TestCountryTableConsistent(t *testing.T) {
	if n := countryLookup().conflicts; len(n) > 0 {
		t.Fatalf("ambiguous country names: %v", n)
	}
	seen := map[string]string{}
	for i, c := range countryTable {
		if i > 0 && countryTable[i-1].code >= c.code {
			t.Fatalf("countryTable not sorted at %s", c.code)
		}
		if prev, dup := seen[c.name]; dup {
			t.Errorf("name %q used by %s and %s", c.name, prev, c.code)
		}
		seen[c.name] = c.code
		if got, ok := CountryCode(c.name); !ok || got != c.code {
			t.Errorf("CountryCode(CountryName(%s)=%q) = %q, %v", c.code, c.name, got, ok)
		}
		if got, ok := CountryCode(c.cldr); !ok || got != c.code {
			t.Errorf("CountryCode(%q) = %q, %v; want %s", c.cldr, got, ok, c.code)
		}
		if !IsCountry([2]byte{c.code[0], c.code[1]}) {
			t.Errorf("IsCountry(%s) = false", c.code)
		}
	}
	for alias, code := range countryAliases {
		if normalizeCountryName(alias) != alias {
			t.Errorf("alias %q is not in normalised form %q", alias, normalizeCountryName(alias))
		}
		if CountryName(code) == "" {
			t.Errorf("alias %q points at unknown code %s", alias, code)
		}
	}
	for _, c := range [][2]byte{{}, {'X', 'X'}, {'d', 'e'}, {'T', '1'}, {'E', 'U'}} {
		if IsCountry(c) {
			t.Errorf("IsCountry(%q) = true", c[:])
		}
	}
}

// TestCountryIndexMatchesTable checks the slot table against a scan of
// countryTable for every pair of bytes, letters or not.
func TestCountryIndexMatchesTable(t *testing.T) {
	want := map[[2]byte]int{}
	for i, c := range countryTable {
		want[[2]byte{c.code[0], c.code[1]}] = i
	}
	for a := range 256 {
		for b := range 256 {
			k := [2]byte{byte(a), byte(b)}
			i, ok := countryIndex(k[0], k[1])
			wi, wok := want[k]
			if ok != wok || (ok && i != wi) {
				t.Fatalf("countryIndex(%q) = %d, %v; want %d, %v", k[:], i, ok, wi, wok)
			}
		}
	}
}

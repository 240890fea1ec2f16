package target

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/text/language"
)

func TestNormalizeLang(t *testing.T) {
	tests := []struct {
		in, want string
		bad      bool
	}{
		{in: "en", want: "en"},
		{in: "EN", want: "en"},
		{in: "en-us", want: "en-US"},
		{in: "en_US", want: "en-US"},
		{in: " en-us ", want: "en-US"},
		{in: "pt-br", want: "pt-BR"},
		{in: "zh-hant", want: "zh-Hant"},
		{in: "zh-Hant-TW", want: "zh-Hant-TW"},
		{in: "es-419", want: "es-419"},
		{in: "iw", want: "he"},
		{in: "sr-latn", want: "sr-Latn"},
		{in: "", bad: true},
		{in: "english", bad: true},
		{in: "*", bad: true},
		{in: "und", bad: true},
		{in: "mul", bad: true},
		{in: "x-klingon", bad: true},
		{in: "qaa", bad: true},
		{in: "en-US-u-ca-gregory", bad: true},
		{in: "de-DE-1996", bad: true},
		{in: "en-US-x-twain", bad: true},
		{in: "en--US", bad: true},
	}
	for _, tt := range tests {
		got, err := NormalizeLang(tt.in)
		if tt.bad {
			if !errors.Is(err, ErrBadLanguage) {
				t.Errorf("NormalizeLang(%q) = %q, %v; want ErrBadLanguage", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("NormalizeLang(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// String renders a parsed entry for test diagnostics: "zh-Hant-TW;q=0.5".
func (v visitorTag) String() string {
	var b strings.Builder
	b.WriteString(unpack(v.lang))
	if v.script != 0 {
		s := unpack(v.script)
		b.WriteString("-" + strings.ToUpper(s[:1]) + s[1:])
	}
	if v.region != 0 {
		b.WriteString("-" + unpack(v.region))
	}
	if v.q != 1000 {
		fmt.Fprintf(&b, ";q=%g", float64(v.q)/1000)
	}
	return b.String()
}

func unpack(k uint32) string {
	var out []byte
	for ; k != 0; k >>= 8 {
		out = append([]byte{byte(k)}, out...)
	}
	return string(out)
}

func parsedTags(header string) string {
	var l acceptList
	l.parse([]byte(header))
	s := make([]string, l.n)
	for i := range l.n {
		s[i] = l.tags[i].String()
	}
	return strings.Join(s, ",")
}

func TestAcceptLanguageParse(t *testing.T) {
	tests := []struct{ header, want string }{
		{"", ""},
		{"en", "en"},
		{"en-US,en;q=0.9", "en-US,en;q=0.9"},
		{"de-DE, de;q=0.9, en-US;q=0.8, en;q=0.7", "de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7"},
		// Sorted by q, stable for ties.
		{"fr;q=0.5, de;q=0.9, it;q=0.5, es", "es,de;q=0.9,fr;q=0.5,it;q=0.5"},
		// Case, "_" and surrounding space.
		{"  EN_gb ;Q=0.8 ,ZH-hant-tw", "zh-Hant-TW,en-GB;q=0.8"},
		// Variants and extensions after the region are ignored.
		{"de-DE-1996, en-US-x-twain;q=0.5", "de-DE,en-US;q=0.5"},
		{"es-419", "es-419"},
		// q-value forms.
		{"a1;q=1.000, en;q=1., fr;q=0.123, de;q=0", "en,fr;q=0.123,de;q=0"},
		{"en;q=1.0", "en"},
		// Garbage is skipped, not fatal.
		{"*, en", "en"},
		{"en;q=2, fr;q=0.5", "fr;q=0.5"},
		{"en;q=0.1234, fr;q=1.001, it;q=, es;q=abc, pt", "pt"},
		{"en-, -en, e, english, 12, de", "de"},
		{",,, ;q=0.5, de", "de"},
		{"i-klingon, en", "en"},
		{"en;level=1;q=0.5", "en;q=0.5"},
		{"en;q = 0.5", "en"}, // "q =" is not the q parameter; the entry keeps q=1
	}
	for _, tt := range tests {
		if got := parsedTags(tt.header); got != tt.want {
			t.Errorf("parse(%q) = %q, want %q", tt.header, got, tt.want)
		}
	}
}

func TestAcceptLanguageBounds(t *testing.T) {
	many := strings.Repeat("en;q=0.1,", 40)
	var l acceptList
	l.parse([]byte(many))
	if l.n != maxAcceptTags {
		t.Errorf("kept %d entries, want %d", l.n, maxAcceptTags)
	}
	// Only the first maxAcceptParts parts are looked at.
	l.parse([]byte(strings.Repeat(",", maxAcceptParts) + "de"))
	if l.n != 0 {
		t.Errorf("entry after %d empty parts was parsed", maxAcceptParts)
	}
}

// langSet compiles language rules whose URLs are the rule tags themselves,
// so a match names the rule that won.
func langSet(t *testing.T, tags ...string) *Set {
	t.Helper()
	var rules []Rule
	for _, tag := range tags {
		rules = append(rules, Rule{Key: tag, URL: tag})
	}
	s, err := Compile(Spec{Lang: rules})
	if err != nil {
		t.Fatalf("Compile(%v): %v", tags, err)
	}
	return s
}

func matchHeader(s *Set, header string) string {
	url, ok := s.Match(&Facts{AcceptLanguage: []byte(header)})
	if !ok {
		return "-"
	}
	return url
}

func TestMatchLanguage(t *testing.T) {
	tests := []struct {
		rules  []string
		header string
		want   string // winning rule, "-" for none
	}{
		{[]string{"de"}, "", "-"},
		{[]string{"de"}, "fr", "-"},
		{[]string{"de"}, "de", "de"},
		{[]string{"de"}, "DE-at", "de"},
		{[]string{"en"}, "en-GB", "en"},
		{[]string{"en-US"}, "en", "en-US"},
		{[]string{"en-US"}, "en-GB", "en-US"},
		{[]string{"en-GB", "en-US"}, "en", "en-US"},
		{[]string{"en-GB", "en"}, "en-US", "en"},
		{[]string{"en", "en-GB"}, "en-GB", "en-GB"},
		{[]string{"pt-PT", "pt-BR"}, "pt", "pt-BR"},
		{[]string{"pt-BR"}, "pt-PT", "pt-BR"},
		// The first entry that fits anything decides.
		{[]string{"fr", "en-US"}, "en-GB, fr;q=0.9", "en-US"},
		{[]string{"de", "fr"}, "it, fr;q=0.5", "fr"},
		{[]string{"de", "fr"}, "fr;q=0.5, de;q=0.9", "de"},
		{[]string{"en", "fr"}, "fr;q=0.8, en;q=0.8", "fr"},
		// q=0 vetoes the rule it names, and only that one.
		{[]string{"de", "fr"}, "fr;q=0.5, de;q=0", "fr"},
		{[]string{"de"}, "de-CH, de;q=0", "-"},
		{[]string{"de-CH"}, "de-CH, de;q=0", "de-CH"},
		{[]string{"de"}, "*", "-"},
		// Scripts.
		{[]string{"zh-Hans", "zh-Hant"}, "zh-TW", "zh-Hant"},
		{[]string{"zh-Hans", "zh-Hant"}, "zh-HK", "zh-Hant"},
		{[]string{"zh-Hans", "zh-Hant"}, "zh-CN", "zh-Hans"},
		{[]string{"zh-Hans", "zh-Hant"}, "zh", "zh-Hans"},
		{[]string{"zh-Hant"}, "zh-CN", "-"},
		{[]string{"zh-Hans"}, "zh-TW", "-"},
		{[]string{"zh-CN", "zh-TW"}, "zh-HK", "zh-TW"},
		{[]string{"zh-CN", "zh-TW"}, "zh-SG", "zh-CN"},
		{[]string{"zh-TW"}, "zh-Hant", "zh-TW"},
		{[]string{"sr-Latn"}, "sr", "-"},
		{[]string{"sr-Latn"}, "sr-ME", "sr-Latn"},
		{[]string{"sr"}, "sr-Latn-RS", "-"},
		// Aliases, both directions of nb/no.
		{[]string{"he"}, "iw-IL", "he"},
		{[]string{"iw"}, "he", "iw"},
		{[]string{"id"}, "in", "id"},
		{[]string{"nb"}, "no", "nb"},
		{[]string{"no"}, "nb-NO", "no"},
		{[]string{"de"}, "ger", "de"},
		{[]string{"es"}, "es-419", "es"},
		{[]string{"es-419"}, "es-MX", "es-419"},
		{[]string{"es-ES", "es-419"}, "es-MX", "es-419"},
		{[]string{"es-419", "es-MX"}, "es-MX", "es-MX"},
		{[]string{"es-ES", "es-419"}, "es", "es-ES"},
	}
	for _, tt := range tests {
		s := langSet(t, tt.rules...)
		if got := matchHeader(s, tt.header); got != tt.want {
			t.Errorf("rules %v, Accept-Language %q: got %s, want %s", tt.rules, tt.header, got, tt.want)
		}
	}
}

// xtextMatch is what language.NewMatcher picks, treating Low and No
// confidence as no match (x/text then returns a fallback, not a match).
func xtextMatch(t *testing.T, rules []string, header string) string {
	t.Helper()
	tags := make([]language.Tag, len(rules))
	for i, r := range rules {
		tags[i] = language.MustParse(r)
	}
	desired, _, err := language.ParseAcceptLanguage(header)
	if err != nil {
		t.Fatalf("x/text cannot parse %q: %v", header, err)
	}
	_, i, conf := language.NewMatcher(tags).Match(desired...)
	if conf < language.High {
		return "-"
	}
	return tags[i].String()
}

func TestMatchAgreesWithXText(t *testing.T) {
	ruleSets := [][]string{
		{"en"},
		{"en-US"},
		{"en-GB"},
		{"de", "en"},
		{"en-US", "de"},
		{"de", "en-US"},
		{"en-GB", "en-US"},
		{"fr", "en-US"},
		{"fr-CA", "fr"},
		{"pt-BR"},
		{"pt-PT", "pt-BR"},
		{"es"},
		{"es-ES", "es-419"},
		{"es-419", "es-MX"},
		{"en-150", "en"},
		{"zh-Hans", "zh-Hant"},
		{"zh-CN", "zh-TW"},
		{"zh-Hant"},
		{"ja", "ko", "zh"},
		{"he", "ar"},
		{"id", "ms"},
		{"nb"},
		{"no"},
		{"sr-Latn"},
		{"ru", "uk"},
	}
	headers := []string{
		"en",
		"en-US",
		"en-GB",
		"en-US,en;q=0.9",
		"en-GB,en;q=0.9,de;q=0.8",
		"de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7",
		"de-CH",
		"fr-FR,fr;q=0.9,en;q=0.8",
		"fr-CA",
		"it,fr;q=0.5",
		"fr;q=0.5,de;q=0.9",
		"es-ES,es;q=0.9",
		"es-MX",
		"es-419",
		"en-IE",
		"en-AU,en;q=0.5",
		"es-AR,es;q=0.9,en;q=0.5",
		"pt-BR,pt;q=0.9",
		"pt-PT",
		"pt",
		"zh-CN,zh;q=0.9",
		"zh-TW,zh;q=0.9,en;q=0.8",
		"zh-HK",
		"zh-Hant",
		"zh",
		"ja,en-US;q=0.9",
		"ko-KR",
		"iw-IL",
		"he",
		"in",
		"id-ID,id;q=0.9,en;q=0.8",
		"nb-NO,nb;q=0.9",
		"no",
		"sr",
		"sr-Latn",
		"sr-ME",
		"ru-RU,ru;q=0.9",
		"uk-UA,uk;q=0.9,ru;q=0.8",
		"nl-NL,nl;q=0.9",
		"ar-SA",
	}
	for _, rules := range ruleSets {
		s := langSet(t, rules...)
		for _, h := range headers {
			if got, want := matchHeader(s, h), xtextMatch(t, rules, h); got != want {
				t.Errorf("rules %v, Accept-Language %q: got %s, x/text %s", rules, h, got, want)
			}
		}
	}
}

// TestMatchDivergesFromXText pins the differences the package doc lists,
// so a change on either side gets noticed and the doc revisited.
func TestMatchDivergesFromXText(t *testing.T) {
	tests := []struct {
		rules        []string
		header       string
		ours, theirs string
	}{
		{[]string{"en-US", "en-GB"}, "en-AU", "en-US", "en-GB"}, // regional closeness
		{[]string{"es-ES", "es-MX"}, "es-AR", "es-ES", "es-MX"},
		{[]string{"en", "en-GB"}, "en-AU", "en", "en-GB"},
		{[]string{"nn"}, "nb", "-", "nn"}, // neighbouring languages
		{[]string{"es", "pt"}, "gl", "-", "es"},
		{[]string{"de"}, "de-CH, de;q=0", "-", "de"}, // q=0 veto
	}
	for _, tt := range tests {
		s := langSet(t, tt.rules...)
		if got := matchHeader(s, tt.header); got != tt.ours {
			t.Errorf("rules %v, %q: got %s, want %s", tt.rules, tt.header, got, tt.ours)
		}
		if got := xtextMatch(t, tt.rules, tt.header); got != tt.theirs {
			t.Errorf("rules %v, %q: x/text now says %s (was %s): update the package doc", tt.rules, tt.header, got, tt.theirs)
		}
	}
}

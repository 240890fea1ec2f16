package target

import (
	"testing"

	"golang.org/x/text/language"
)

// Realistic request inputs for the zero-allocation proofs and benchmarks.
var (
	benchUA      = []byte("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1")
	benchLang    = []byte("de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7,fr;q=0.5")
	benchMethod  = []byte("GET")
	benchPurpose = []byte("prefetch;prerender")
)

func benchSet(tb testing.TB) *Set {
	tb.Helper()
	s, err := Compile(Spec{
		Geo: []Rule{
			{Key: "US", URL: "https://example.com/us"}, {Key: "GB", URL: "https://example.com/gb"},
			{Key: "FR", URL: "https://example.com/fr"}, {Key: "IT", URL: "https://example.com/it"},
			{Key: "ES", URL: "https://example.com/es"},
		},
		Device: []Rule{{Key: "windows", URL: "https://example.com/win"}, {Key: "linux", URL: "https://example.com/linux"}},
		Lang: []Rule{
			{Key: "ja", URL: "https://example.com/ja"}, {Key: "zh-Hant", URL: "https://example.com/zh"},
			{Key: "en-GB", URL: "https://example.com/en"}, {Key: "de", URL: "https://example.com/de"},
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func BenchmarkDeviceOf(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchUA)))
	for b.Loop() {
		_ = DeviceOf(benchUA)
	}
}

func BenchmarkClassOf(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = ClassOf(benchUA, benchMethod, nil)
	}
}

func BenchmarkInspect(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Inspect(benchUA, benchMethod, nil)
	}
}

func BenchmarkMatch(b *testing.B) {
	set := benchSet(b)
	cases := []struct {
		name string
		f    Facts
	}{
		{"geo", Facts{Country: [2]byte{'E', 'S'}, Device: DeviceIPhone, AcceptLanguage: benchLang}},
		{"device", Facts{Country: [2]byte{'C', 'H'}, Device: DeviceLinux, AcceptLanguage: benchLang}},
		{"language", Facts{Country: [2]byte{'C', 'H'}, Device: DeviceIPhone, AcceptLanguage: benchLang}},
		{"none", Facts{Country: [2]byte{'C', 'H'}, Device: DeviceIPhone, AcceptLanguage: []byte("pt-BR,pt;q=0.9")}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = set.Match(&c.f)
			}
		})
	}
}

// BenchmarkMatchGeo sizes the geo step, matching the last rule: linear
// scans up to geoScanMax rules, the index beyond, up to a link targeting
// every country.
func BenchmarkMatchGeo(b *testing.B) {
	for _, n := range []int{1, 5, geoScanMax, geoScanMax + 1, 50, 250} {
		var rules []Rule
		for _, c := range countryTable[:n] {
			rules = append(rules, Rule{Key: c.code, URL: c.code})
		}
		set, err := Compile(Spec{Geo: rules})
		if err != nil {
			b.Fatal(err)
		}
		last := countryTable[n-1].code
		f := Facts{Country: [2]byte{last[0], last[1]}}
		b.Run(itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = set.Match(&f)
			}
		})
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// BenchmarkXTextMatcher is the reference the package doc quotes: what the
// language step would cost with x/text at request time.
func BenchmarkXTextMatcher(b *testing.B) {
	m := language.NewMatcher([]language.Tag{language.Japanese, language.MustParse("zh-Hant"), language.BritishEnglish, language.German})
	b.ReportAllocs()
	for b.Loop() {
		tags, _, _ := language.ParseAcceptLanguage(string(benchLang))
		_, _, _ = m.Match(tags...)
	}
}

func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		benchSet(b)
	}
}

// BenchmarkIsCountry is the edge's per-visit check of a proxy's country
// header.
func BenchmarkIsCountry(b *testing.B) {
	codes := [][2]byte{{'D', 'E'}, {'U', 'S'}, {'Z', 'W'}, {'A', 'D'}, {'X', 'X'}}
	b.ReportAllocs()
	n := 0
	for i := 0; b.Loop(); i++ {
		if IsCountry(codes[i%len(codes)]) {
			n++
		}
	}
	if n == 0 {
		b.Fatal("no country found")
	}
}

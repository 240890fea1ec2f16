package target

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCompileErrors(t *testing.T) {
	ok := Rule{Key: "de", URL: "https://example.com/de"}
	many := make([]Rule, MaxRules+1)
	tests := []struct {
		name string
		spec Spec
		want string // full error text
		is   error
	}{
		{"unknown country", Spec{Geo: []Rule{ok, {Key: "atlantis", URL: "https://x"}}},
			`geotarget[1].location: unknown country "atlantis"`, ErrUnknownCountry},
		{"empty country", Spec{Geo: []Rule{{Key: "", URL: "https://x"}}},
			`geotarget[0].location: unknown country ""`, ErrUnknownCountry},
		{"empty geo URL", Spec{Geo: []Rule{{Key: "fr", URL: " "}}},
			`geotarget[0].link: empty link`, ErrEmptyURL},
		{"duplicate country", Spec{Geo: []Rule{ok, {Key: "FR", URL: "https://x"}, {Key: "Germany", URL: "https://y"}}},
			`geotarget[2].location: duplicate country "DE" (also geotarget[0])`, ErrDuplicate},
		{"unknown device", Spec{Device: []Rule{{Key: "iphone", URL: "https://x"}, {Key: "toaster", URL: "https://y"}}},
			`devicetarget[1].device: unknown device "toaster": use one of iphone, ipad, ipod, android, windows, windows phone, macos, linux, chromeos, blackberry`, ErrUnknownDevice},
		{"ios", Spec{Device: []Rule{{Key: "iOS", URL: "https://x"}}},
			`devicetarget[0].device: unknown device "iOS": use iphone, ipad or ipod`, ErrUnknownDevice},
		{"duplicate device", Spec{Device: []Rule{{Key: "mac", URL: "https://x"}, {Key: "macOS", URL: "https://y"}}},
			`devicetarget[1].device: duplicate device "macos" (also devicetarget[0])`, ErrDuplicate},
		{"empty device URL", Spec{Device: []Rule{{Key: "android", URL: ""}}},
			`devicetarget[0].link: empty link`, ErrEmptyURL},
		{"bad language", Spec{Lang: []Rule{{Key: "english", URL: "https://x"}}},
			`languagetarget[0].language: invalid language "english": not a BCP 47 language tag`, ErrBadLanguage},
		{"extension", Spec{Lang: []Rule{{Key: "en-US-u-ca-gregory", URL: "https://x"}}},
			`languagetarget[0].language: invalid language "en-US-u-ca-gregory": use language[-script][-region] only`, ErrBadLanguage},
		{"duplicate language", Spec{Lang: []Rule{{Key: "en-us", URL: "https://x"}, {Key: "en_US", URL: "https://y"}}},
			`languagetarget[1].language: duplicate language "en-US" (also languagetarget[0])`, ErrDuplicate},
		{"too many", Spec{Device: many},
			`devicetarget: too many rules: 257, at most 256`, ErrTooManyRules},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile(tt.spec)
			if err == nil {
				t.Fatalf("Compile succeeded: %+v", s)
			}
			if err.Error() != tt.want {
				t.Errorf("error %q\nwant  %q", err, tt.want)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
			}
			var re *RuleError
			if !errors.As(err, &re) || !strings.HasPrefix(tt.want, re.Path()+": ") {
				t.Errorf("not a *RuleError with the right path: %#v", err)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	in := Spec{
		Geo:          []Rule{{Key: "germany", URL: "https://de"}, {Key: "us", URL: "https://us"}},
		Device:       []Rule{{Key: "OSX", URL: "https://mac"}, {Key: "Windows-Phone", URL: "https://wp"}},
		Lang:         []Rule{{Key: "pt_br", URL: "https://pt"}, {Key: "iw", URL: "https://he"}},
		IOSStore:     "https://apps.apple.com/app/id1",
		AndroidStore: "https://play.google.com/store/apps/details?id=x",
	}
	want := Spec{
		Geo:          []Rule{{Key: "DE", URL: "https://de"}, {Key: "US", URL: "https://us"}},
		Device:       []Rule{{Key: "macos", URL: "https://mac"}, {Key: "windows phone", URL: "https://wp"}},
		Lang:         []Rule{{Key: "pt-BR", URL: "https://pt"}, {Key: "he", URL: "https://he"}},
		IOSStore:     in.IOSStore,
		AndroidStore: in.AndroidStore,
	}
	got, err := Normalize(in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Normalize =\n%+v\nwant\n%+v", got, want)
	}
	// Normalising canonical keys is the identity.
	again, err := Normalize(got)
	if err != nil || !reflect.DeepEqual(again, got) {
		t.Errorf("Normalize not idempotent: %+v, %v", again, err)
	}
}

func TestMatchPrecedence(t *testing.T) {
	full := Spec{
		Geo:          []Rule{{Key: "DE", URL: "geo-de"}, {Key: "france", URL: "geo-fr"}},
		Device:       []Rule{{Key: "iphone", URL: "dev-iphone"}, {Key: "windows", URL: "dev-windows"}, {Key: "android", URL: "dev-android"}},
		Lang:         []Rule{{Key: "es", URL: "lang-es"}, {Key: "de", URL: "lang-de"}},
		IOSStore:     "store-ios",
		AndroidStore: "store-android",
	}
	noStores := full
	noStores.IOSStore, noStores.AndroidStore = "", ""
	langOnly := Spec{Lang: full.Lang}

	tests := []struct {
		name string
		spec Spec
		f    Facts
		want string // "" for no match
	}{
		{"iphone deep link beats geo", full, Facts{Country: [2]byte{'D', 'E'}, Device: DeviceIPhone}, "store-ios"},
		{"ipad deep link", full, Facts{Device: DeviceIPad}, "store-ios"},
		{"ipod deep link", full, Facts{Device: DeviceIPod}, "store-ios"},
		{"android deep link", full, Facts{Device: DeviceAndroid, AcceptLanguage: []byte("es")}, "store-android"},
		{"macos has no deep link", full, Facts{Device: DeviceMacOS, AcceptLanguage: []byte("es")}, "lang-es"},
		{"geo beats device", noStores, Facts{Country: [2]byte{'D', 'E'}, Device: DeviceIPhone}, "geo-de"},
		{"second geo rule", noStores, Facts{Country: [2]byte{'F', 'R'}, Device: DeviceWindows}, "geo-fr"},
		{"lower-case country fact", noStores, Facts{Country: [2]byte{'f', 'r'}}, "geo-fr"},
		{"device beats language", noStores, Facts{Country: [2]byte{'U', 'S'}, Device: DeviceWindows, AcceptLanguage: []byte("de")}, "dev-windows"},
		{"android rule without store", noStores, Facts{Device: DeviceAndroid}, "dev-android"},
		{"language last", noStores, Facts{Country: [2]byte{'U', 'S'}, Device: DeviceLinux, AcceptLanguage: []byte("fr, de;q=0.5")}, "lang-de"},
		{"q-values order languages", noStores, Facts{AcceptLanguage: []byte("de;q=0.4, es;q=0.6")}, "lang-es"},
		{"nothing matches", noStores, Facts{Country: [2]byte{'U', 'S'}, Device: DeviceLinux, AcceptLanguage: []byte("fr")}, ""},
		{"unknown device", noStores, Facts{Device: DeviceUnknown}, ""},
		{"out-of-range device", noStores, Facts{Device: Device(250)}, ""},
		{"zero facts", full, Facts{}, ""},
		{"language only", langOnly, Facts{Country: [2]byte{'D', 'E'}, Device: DeviceIPhone, AcceptLanguage: []byte("de-AT")}, "lang-de"},
		{"empty spec", Spec{}, Facts{Country: [2]byte{'D', 'E'}, Device: DeviceIPhone, AcceptLanguage: []byte("de")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			url, ok := s.Match(&tt.f)
			if ok != (tt.want != "") || url != tt.want {
				t.Errorf("Match = %q, %v; want %q", url, ok, tt.want)
			}
		})
	}
	var nilSet *Set
	if url, ok := nilSet.Match(&Facts{Device: DeviceIPhone}); ok || url != "" {
		t.Errorf("nil Set matched %q", url)
	}
}

func TestUses(t *testing.T) {
	tests := []struct {
		spec Spec
		want Uses
	}{
		{Spec{}, 0},
		{Spec{Geo: []Rule{{Key: "de", URL: "x"}}}, UsesCountry},
		{Spec{Device: []Rule{{Key: "linux", URL: "x"}}}, UsesDevice},
		{Spec{IOSStore: "x"}, UsesDevice},
		{Spec{AndroidStore: "x"}, UsesDevice},
		{Spec{Lang: []Rule{{Key: "de", URL: "x"}}}, UsesLanguage},
		{Spec{Geo: []Rule{{Key: "de", URL: "x"}}, Lang: []Rule{{Key: "de", URL: "x"}}}, UsesCountry | UsesLanguage},
	}
	for _, tt := range tests {
		s, err := Compile(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Uses(); got != tt.want {
			t.Errorf("Uses(%+v) = %b, want %b", tt.spec, got, tt.want)
		}
	}
	if (*Set)(nil).Uses() != 0 {
		t.Error("nil Set uses something")
	}
}

// Every country can be targeted at once, and each one finds its own rule.
func TestMatchAllCountries(t *testing.T) {
	var rules []Rule
	for _, c := range countryTable {
		rules = append(rules, Rule{Key: c.name, URL: c.code})
	}
	s, err := Compile(Spec{Geo: rules})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range countryTable {
		if url, ok := s.Match(&Facts{Country: [2]byte{c.code[0], c.code[1]}}); !ok || url != c.code {
			t.Errorf("country %s matched %q, %v", c.code, url, ok)
		}
	}
}

// Long geo lists use the index: lower-case and non-letter facts behave as
// with the linear scan.
func TestMatchGeoIndex(t *testing.T) {
	for _, n := range []int{geoScanMax, geoScanMax + 1} {
		var rules []Rule
		for _, c := range countryTable[:n] {
			rules = append(rules, Rule{Key: c.code, URL: c.code})
		}
		s, err := Compile(Spec{Geo: rules})
		if err != nil {
			t.Fatal(err)
		}
		if (s.geoIndex != nil) != (n > geoScanMax) {
			t.Fatalf("%d rules: index built = %v", n, s.geoIndex != nil)
		}
		first := countryTable[0].code
		tests := []struct {
			c    [2]byte
			want string
		}{
			{[2]byte{first[0], first[1]}, first},
			{[2]byte{first[0] + 32, first[1] + 32}, first},
			{[2]byte{'Z', 'W'}, ""},
			{[2]byte{'1', '2'}, ""},
			{[2]byte{'[', 'A'}, ""},
			{[2]byte{0xff, 0xff}, ""},
		}
		for _, tt := range tests {
			url, ok := s.Match(&Facts{Country: tt.c})
			if url != tt.want || ok != (tt.want != "") {
				t.Errorf("%d rules, country %q: got %q, %v; want %q", n, tt.c[:], url, ok, tt.want)
			}
		}
	}
}

func TestMemSize(t *testing.T) {
	if (*Set)(nil).MemSize() != 0 {
		t.Error("nil Set has a size")
	}
	empty, err := Compile(Spec{})
	if err != nil {
		t.Fatal(err)
	}
	url := strings.Repeat("u", 1000)
	var geo []Rule
	for _, c := range countryTable[:geoScanMax+1] {
		geo = append(geo, Rule{Key: c.code, URL: url})
	}
	big, err := Compile(Spec{Geo: geo, Lang: []Rule{{Key: "zh-TW", URL: url}}, IOSStore: url})
	if err != nil {
		t.Fatal(err)
	}
	// Every URL byte and the geo index are counted.
	if floor := empty.MemSize() + (geoScanMax+3)*1000 + 676; big.MemSize() < floor {
		t.Errorf("MemSize = %d, want at least %d", big.MemSize(), floor)
	}
}

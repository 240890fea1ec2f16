package target

import (
	"fmt"
	"strings"
	"unsafe"

	"golang.org/x/text/language"
)

// Rule is one targeting rule as the API receives it: Key is a country
// (code or English name), a device name or a BCP 47 language tag; URL is
// the destination, kept exactly as given.
type Rule struct {
	Key string
	URL string
}

// Spec is everything a link says about where a visitor should go instead
// of its long URL. IOSStore and AndroidStore are the deeplink store URLs
// ("" when unset).
type Spec struct {
	Geo          []Rule
	Device       []Rule
	Lang         []Rule
	IOSStore     string
	AndroidStore string
}

// Facts describe one visitor, gathered by the edge.
type Facts struct {
	Country        [2]byte // ISO 3166-1 alpha-2, upper case; zero when unknown
	Device         Device
	AcceptLanguage []byte // raw header; only read during Match
}

// Set is a compiled Spec. It is immutable and safe for concurrent Match
// calls; the edge caches one per link.
type Set struct {
	iosStore     string
	androidStore string
	geo          []uint16    // country codes, two upper-case bytes packed
	geoURL       []string    // parallel to geo
	geoIndex     *[676]uint8 // for long lists: code (A-Z)² -> geo index + 1
	// device is a short list, not an array by Device: links name one to
	// three devices, and an [numDevices]string array was 176 of a Set's
	// 296 bytes (the edge caches a Set per targeted link).
	device []deviceRule
	lang   []langRule
}

type deviceRule struct {
	device Device
	url    string
}

// Uses says which visitor facts a Set can look at, so the edge can skip a
// GeoIP lookup or a User-Agent scan a link does not need.
type Uses uint8

const (
	UsesCountry  Uses = 1 << iota // geo rules
	UsesDevice                    // device rules or deep links
	UsesLanguage                  // language rules
)

// Normalize validates every rule of s and returns a copy with canonical
// keys: geo keys become upper-case ISO codes ("germany" -> "DE"), device
// keys canonical names ("OSX" -> "macos"), language keys canonical BCP 47
// tags ("en_us" -> "en-US"). URLs are returned as given; validating them is
// the caller's job, but empty ones are rejected. The error is a *RuleError
// naming the first offending field, e.g.
// `geotarget[1].location: unknown country "atlantis"`. Duplicate keys (after
// normalisation) are rejected: the second rule could never match.
func Normalize(s Spec) (Spec, error) {
	out, _, err := normalize(s)
	return out, err
}

func normalize(s Spec) (Spec, []language.Tag, error) {
	out := Spec{IOSStore: s.IOSStore, AndroidStore: s.AndroidStore}
	var err error
	if out.Geo, err = normalizeList(s.Geo, "geotarget", "location", "country", NormalizeGeo); err != nil {
		return Spec{}, nil, err
	}
	if out.Device, err = normalizeList(s.Device, "devicetarget", "device", "device", NormalizeDevice); err != nil {
		return Spec{}, nil, err
	}
	tags := make([]language.Tag, 0, len(s.Lang))
	normLang := func(key string) (string, error) {
		t, err := parseRuleTag(key)
		if err != nil {
			return "", err
		}
		tags = append(tags, t)
		return t.String(), nil
	}
	if out.Lang, err = normalizeList(s.Lang, "languagetarget", "language", "language", normLang); err != nil {
		return Spec{}, nil, err
	}
	return out, tags, nil
}

func normalizeList(rules []Rule, list, field, noun string, norm func(string) (string, error)) ([]Rule, error) {
	if len(rules) > MaxRules {
		return nil, &RuleError{List: list, Index: -1,
			Err: fmt.Errorf("%w: %d, at most %d", ErrTooManyRules, len(rules), MaxRules)}
	}
	out := make([]Rule, len(rules))
	for i, r := range rules {
		key, err := norm(r.Key)
		if err != nil {
			return nil, &RuleError{List: list, Index: i, Field: field, Err: err}
		}
		if strings.TrimSpace(r.URL) == "" {
			return nil, &RuleError{List: list, Index: i, Field: "link", Err: ErrEmptyURL}
		}
		for j := range i {
			if out[j].Key == key {
				return nil, &RuleError{List: list, Index: i, Field: field,
					Err: fmt.Errorf("%w %s %q (also %s[%d])", ErrDuplicate, noun, key, list, j)}
			}
		}
		out[i] = Rule{Key: key, URL: r.URL}
	}
	return out, nil
}

// Compile normalises s (see Normalize, which defines the errors) and
// prepares it for Match. It is meant to run once per link, when the link
// enters a cache, never per request.
func Compile(s Spec) (*Set, error) {
	n, tags, err := normalize(s)
	if err != nil {
		return nil, err
	}
	set := &Set{iosStore: n.IOSStore, androidStore: n.AndroidStore}
	if len(n.Geo) > 0 {
		set.geo = make([]uint16, 0, len(n.Geo))
		set.geoURL = make([]string, 0, len(n.Geo))
	}
	for _, r := range n.Geo {
		set.geo = append(set.geo, uint16(r.Key[0])<<8|uint16(r.Key[1]))
		set.geoURL = append(set.geoURL, r.URL)
	}
	if len(set.geo) > geoScanMax {
		set.geoIndex = new([676]uint8)
		for i, r := range n.Geo {
			set.geoIndex[int(r.Key[0]-'A')*26+int(r.Key[1]-'A')] = uint8(i + 1)
		}
	}
	if len(n.Device) > 0 {
		set.device = make([]deviceRule, 0, len(n.Device))
	}
	for _, r := range n.Device {
		d, _ := ParseDevice(r.Key)
		set.device = append(set.device, deviceRule{d, r.URL})
	}
	if len(n.Lang) > 0 {
		set.lang = make([]langRule, 0, len(n.Lang))
	}
	for i, r := range n.Lang {
		set.lang = append(set.lang, compileLang(tags[i], r.URL))
	}
	return set, nil
}

// geoScanMax is the longest geo list scanned linearly; longer ones get a
// 676-byte index. Typical links have a handful of countries, where the
// scan is as fast as the index and costs no memory; BenchmarkMatchGeo shows
// the scan growing linearly (a link targeting every country is about 30x
// slower than the index), which the index caps.
const geoScanMax = 16

func (s *Set) matchGeo(a, b byte) (string, bool) {
	if s.geoIndex != nil {
		if a < 'A' || a > 'Z' || b < 'A' || b > 'Z' {
			return "", false
		}
		if i := s.geoIndex[int(a-'A')*26+int(b-'A')]; i != 0 {
			return s.geoURL[i-1], true
		}
		return "", false
	}
	c := uint16(a)<<8 | uint16(b)
	for i, g := range s.geo {
		if g == c {
			return s.geoURL[i], true
		}
	}
	return "", false
}

// Uses reports which facts Match may consult; 0 means Match never matches.
func (s *Set) Uses() Uses {
	if s == nil {
		return 0
	}
	var u Uses
	if len(s.geo) > 0 {
		u |= UsesCountry
	}
	if len(s.device) > 0 || s.iosStore != "" || s.androidStore != "" {
		u |= UsesDevice
	}
	if len(s.lang) > 0 {
		u |= UsesLanguage
	}
	return u
}

// Match returns the destination for a visitor, or ok=false when no rule
// applies and the link's long URL should be used. The first step that
// matches wins:
//
//  1. deep links: iPhone, iPad and iPod go to IOSStore, Android to
//     AndroidStore, when set;
//  2. geo: the visitor's country;
//  3. device: the visitor's device;
//  4. language: the Accept-Language header (see the package doc).
//
// Match is pure and allocates nothing; a nil Set never matches.
func (s *Set) Match(f *Facts) (url string, ok bool) {
	if s == nil {
		return "", false
	}
	switch f.Device {
	case DeviceIPhone, DeviceIPad, DeviceIPod:
		if s.iosStore != "" {
			return s.iosStore, true
		}
	case DeviceAndroid:
		if s.androidStore != "" {
			return s.androidStore, true
		}
	}
	if len(s.geo) > 0 && f.Country != [2]byte{} {
		if url, ok := s.matchGeo(upper(f.Country[0]), upper(f.Country[1])); ok {
			return url, true
		}
	}
	for i := range s.device {
		if s.device[i].device == f.Device {
			return s.device[i].url, true
		}
	}
	return matchLang(s.lang, f.AcceptLanguage)
}

// MemSize estimates the bytes a Set holds, URLs included, so the edge can
// charge it to a cache bounded by bytes.
func (s *Set) MemSize() int {
	if s == nil {
		return 0
	}
	n := int(unsafe.Sizeof(*s)) + len(s.iosStore) + len(s.androidStore)
	n += cap(s.geo)*2 + cap(s.geoURL)*int(unsafe.Sizeof("")) + cap(s.lang)*int(unsafe.Sizeof(langRule{})) +
		cap(s.device)*int(unsafe.Sizeof(deviceRule{}))
	if s.geoIndex != nil {
		n += len(s.geoIndex)
	}
	for _, u := range s.geoURL {
		n += len(u)
	}
	for _, d := range s.device {
		n += len(d.url)
	}
	for i := range s.lang {
		n += s.lang[i].memSize()
	}
	return n
}

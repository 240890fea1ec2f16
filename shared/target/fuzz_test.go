package target

import (
	"testing"
)

// FuzzAcceptLanguage feeds arbitrary headers to the parser and matcher:
// they must not panic, must keep entries sorted by q, and must only ever
// return one of the rule URLs.
func FuzzAcceptLanguage(f *testing.F) {
	for _, seed := range []string{
		"", "*", "en", "de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7", "zh-Hant-TW;q=0.5, zh-HK",
		"en;q=0", "en;q=1.000", ";;;,,,", "en-;q=", "x-klingon, i-default", "es-419",
		"en_US;q=0.5;level=1", "\xff\xfe;q=0.1",
	} {
		f.Add([]byte(seed))
	}
	set, err := Compile(Spec{Lang: []Rule{{Key: "de", URL: "de"}, {Key: "zh-Hant", URL: "zh-Hant"}, {Key: "es-419", URL: "es-419"}, {Key: "en-GB", URL: "en-GB"}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, header []byte) {
		var l acceptList
		l.parse(header)
		if l.n > maxAcceptTags {
			t.Fatalf("%d entries", l.n)
		}
		for i := 1; i < l.n; i++ {
			if l.tags[i-1].q < l.tags[i].q {
				t.Fatalf("not sorted by q: %v", l.tags[:l.n])
			}
		}
		for i := range l.n {
			if l.tags[i].lang == 0 || l.tags[i].q > 1000 {
				t.Fatalf("bad entry %v", l.tags[i])
			}
		}
		url, ok := set.Match(&Facts{AcceptLanguage: header})
		switch {
		case !ok && url != "":
			t.Fatalf("no match but url %q", url)
		case ok && url != "de" && url != "zh-Hant" && url != "es-419" && url != "en-GB":
			t.Fatalf("matched unknown url %q", url)
		}
	})
}

// FuzzMatch drives Match and the User-Agent classifier with arbitrary
// facts: no panic, and deep links keep their precedence.
func FuzzMatch(f *testing.F) {
	f.Add([]byte("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X)"), []byte("DE"), []byte("de"))
	f.Add([]byte("Windows Phone; Android; iPhone"), []byte("fr"), []byte("en;q=0.5"))
	f.Add([]byte(""), []byte{0, 0}, []byte(""))
	set, err := Compile(Spec{
		Geo:      []Rule{{Key: "DE", URL: "geo"}},
		Device:   []Rule{{Key: "windows phone", URL: "device"}},
		Lang:     []Rule{{Key: "en", URL: "lang"}},
		IOSStore: "ios",
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, ua, country, lang []byte) {
		a := Inspect(ua, []byte("GET"), nil)
		if a.Device != DeviceOf(ua) || a.Class != ClassOf(ua, []byte("GET"), nil) || a.SocialPreview != IsSocialPreview(ua) {
			t.Fatal("Inspect disagrees with DeviceOf/ClassOf/IsSocialPreview")
		}
		d := a.Device
		var c [2]byte
		copy(c[:], country)
		url, _ := set.Match(&Facts{Country: c, Device: d, AcceptLanguage: lang})
		if (d == DeviceIPhone || d == DeviceIPad || d == DeviceIPod) && url != "ios" {
			t.Fatalf("iOS device %s got %q", d, url)
		}
	})
}

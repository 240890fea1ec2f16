package click

import (
	"bufio"
	"net/netip"
	"os"
	"strings"
	"testing"
)

func testEnricher(t testing.TB, countryOf func(netip.Addr) [2]byte) *Enricher {
	t.Helper()
	e, err := NewEnricher(EnricherConfig{Secret: []byte("test-secret"), CountryOf: countryOf, CacheSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// hit builds a Hit the way the edge fills one.
func hit(ip, ua, ref, lang string, country string) *Hit {
	h := &Hit{UnixNano: 1_700_000_000_123_456_789, LinkID: 42, OwnerID: 7, Kind: KindLink, Class: ClassHuman}
	if ip != "" {
		h.IP = netip.MustParseAddr(ip).As16()
	}
	copy(h.Country[:], country)
	h.SetUA([]byte(ua))
	h.SetReferer([]byte(ref))
	h.SetLang([]byte(lang))
	return h
}

func TestNewEnricherNeedsSecret(t *testing.T) {
	if _, err := NewEnricher(EnricherConfig{}); err == nil {
		t.Fatal("NewEnricher without a secret: want an error")
	}
}

func TestEnrichUserAgents(t *testing.T) {
	f, err := os.Open("testdata/useragents.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := testEnricher(t, nil)
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		fields := strings.SplitN(sc.Text(), "\t", 4)
		if len(fields) != 4 {
			t.Fatalf("bad fixture line %q", sc.Text())
		}
		n++
		want := uaInfo{browser: fields[0], os: fields[1], device: fields[2]}
		t.Run(fields[3], func(t *testing.T) {
			// Twice: the second answer comes from the cache.
			for range 2 {
				r := e.Enrich(hit("192.0.2.1", fields[3], "", "", ""))
				if got := (uaInfo{r.Browser, r.OS, r.Device}); got != want {
					t.Fatalf("got %+v, want %+v", got, want)
				}
			}
		})
	}
	if n < 8 {
		t.Fatalf("only %d fixtures read", n)
	}
}

func TestEnrichReferrer(t *testing.T) {
	tests := []struct {
		ref  string
		host string
		cat  RefCategory
	}{
		{"", "", RefDirect},
		{"https://www.facebook.com/", "facebook.com", RefSocialNetwork},
		{"https://l.facebook.com/l.php?u=x", "l.facebook.com", RefSocialNetwork},
		{"https://lm.facebook.com", "lm.facebook.com", RefSocialNetwork},
		{"https://fb.com", "fb.com", RefSocialNetwork},
		{"https://www.linkedin.com/feed/", "linkedin.com", RefSocialNetwork},
		{"https://lnkd.in/abc", "lnkd.in", RefSocialNetwork},
		{"https://old.reddit.com/r/golang", "old.reddit.com", RefSocialNetwork},
		{"https://vk.com/", "vk.com", RefSocialNetwork},
		{"https://t.co/xyz", "t.co", RefMicroblog},
		{"https://twitter.com/someone", "twitter.com", RefMicroblog},
		{"https://x.com/", "x.com", RefMicroblog},
		{"https://mastodon.social/@a", "mastodon.social", RefMicroblog},
		{"https://mastodon.online/@a", "mastodon.online", RefMicroblog},
		{"https://www.threads.net/", "threads.net", RefMicroblog},
		{"https://bsky.app/profile/x", "bsky.app", RefMicroblog},
		{"https://www.instagram.com/", "instagram.com", RefPhotoSharing},
		{"https://l.instagram.com/?u=x", "l.instagram.com", RefPhotoSharing},
		{"https://www.pinterest.com/pin/1", "pinterest.com", RefPhotoSharing},
		{"https://pinterest.co.uk/", "pinterest.co.uk", RefPhotoSharing},
		{"https://www.flickr.com/photos", "flickr.com", RefPhotoSharing},
		{"https://www.google.com/", "google.com", RefSearchEngine},
		{"https://www.google.co.uk/search?q=a", "google.co.uk", RefSearchEngine},
		{"https://www.google.de/", "google.de", RefSearchEngine},
		{"https://www.bing.com/search?q=x", "bing.com", RefSearchEngine},
		{"https://duckduckgo.com/", "duckduckgo.com", RefSearchEngine},
		{"https://search.yahoo.com/search?p=x", "search.yahoo.com", RefSearchEngine},
		{"https://yandex.ru/search/", "yandex.ru", RefSearchEngine},
		{"https://www.baidu.com/s?wd=x", "baidu.com", RefSearchEngine},
		{"https://www.ecosia.org/search", "ecosia.org", RefSearchEngine},
		{"https://search.brave.com/search?q=x", "search.brave.com", RefSearchEngine},
		{"android-app://com.google.android.googlequicksearchbox/", "com.google.android.googlequicksearchbox", RefSearchEngine},
		{"https://web.whatsapp.com/", "web.whatsapp.com", RefMessaging},
		{"https://t.me/channel", "t.me", RefMessaging},
		{"https://web.telegram.org/", "web.telegram.org", RefMessaging},
		{"https://discord.com/channels/1", "discord.com", RefMessaging},
		{"https://app.slack.com/client", "app.slack.com", RefMessaging},
		{"https://www.messenger.com/t/1", "messenger.com", RefMessaging},
		{"android-app://org.telegram.messenger", "org.telegram.messenger", RefMessaging},
		{"https://mail.google.com/mail/u/0/", "mail.google.com", RefEmail},
		{"https://outlook.live.com/mail/0/", "outlook.live.com", RefEmail},
		{"https://mail.yahoo.com/d/folders/1", "mail.yahoo.com", RefEmail},
		{"android-app://com.google.android.gm/", "com.google.android.gm", RefEmail},
		{"https://example.org/page", "example.org", RefOther},
		{"https://notgoogle.com/", "notgoogle.com", RefOther},
		{"HTTPS://User:Pw@WWW.Example.COM.:8443/x?y#z", "example.com", RefOther},
		{"http://[2001:db8::1]:8080/", "2001:db8::1", RefOther},
		{"//cdn.example.net/x", "cdn.example.net", RefOther},
		{"not a url", "", RefOther},
		{"https://", "", RefOther},
		{"https://www./", "www", RefOther},
	}
	e := testEnricher(t, nil)
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			for range 2 { // the second answer comes from the cache
				r := e.Enrich(hit("192.0.2.1", "", tt.ref, "", ""))
				if r.RefHost != tt.host || r.RefCategory != tt.cat {
					t.Fatalf("got (%q, %s), want (%q, %s)", r.RefHost, r.RefCategory, tt.host, tt.cat)
				}
			}
		})
	}
}

func TestEnrichLanguage(t *testing.T) {
	tests := []struct{ header, want string }{
		{"", ""},
		{"de", "de"},
		{"de-CH,de;q=0.9,en;q=0.8", "de"},
		{"en-US,en;q=0.9", "en"},
		{"fr;q=0.5, it;q=0.9, es;q=0.7", "it"},
		{"FR-ca", "fr"},
		{"zh_TW", "zh"},
		{"*;q=1, pt-BR;q=0.8", "pt"},
		{"en;q=0, de;q=0.1", "de"},
		{"en;q=0.5, de;q=0.5", "en"},
		{"fil-PH", "fil"},
		{"i-klingon", ""},
		{"en;q=2", ""},
		{"en;q=abc, nl", "nl"},
		{"x", ""},
		{",,;", ""},
		{"en;q=1.000", "en"},
		{"en ; q=0.3, sv ;q=0.4", "sv"},
	}
	e := testEnricher(t, nil)
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			if got := e.Enrich(hit("192.0.2.1", "", "", tt.header, "")).Language; got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEnrichCountry(t *testing.T) {
	geo := func(a netip.Addr) [2]byte {
		switch a {
		case netip.MustParseAddr("192.0.2.1"):
			return [2]byte{'F', 'R'}
		case netip.MustParseAddr("2001:db8::1"):
			return [2]byte{'j', 'p'}
		}
		return [2]byte{}
	}
	tests := []struct {
		name      string
		ip        string
		header    string
		countryOf func(netip.Addr) [2]byte
		want      string
	}{
		{"header wins", "192.0.2.1", "DE", geo, "DE"},
		{"header lower case", "192.0.2.1", "us", geo, "US"},
		{"geoip v4 (unmapped)", "192.0.2.1", "", geo, "FR"},
		{"geoip v6", "2001:db8::1", "", geo, "JP"},
		{"geoip miss", "198.51.100.1", "", geo, ""},
		{"no geoip", "192.0.2.1", "", nil, ""},
		{"no ip", "", "", geo, ""},
		{"garbage header", "192.0.2.1", "1!", geo, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := testEnricher(t, tt.countryOf)
			if got := e.Enrich(hit(tt.ip, "", "", "", tt.header)).Country; got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEnrichVisitor(t *testing.T) {
	e := testEnricher(t, nil)
	other, err := NewEnricher(EnricherConfig{Secret: []byte("another-secret")})
	if err != nil {
		t.Fatal(err)
	}
	const ua = "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0"
	base := e.Enrich(hit("192.0.2.1", ua, "", "", "")).Visitor
	tests := []struct {
		name string
		got  uint64
		same bool
	}{
		{"same ip and ua", e.Enrich(hit("192.0.2.1", ua, "https://x.com/", "de", "DE")).Visitor, true},
		{"ipv4-mapped form is the same ip", e.Enrich(hit("::ffff:192.0.2.1", ua, "", "", "")).Visitor, true},
		{"other ip", e.Enrich(hit("192.0.2.2", ua, "", "", "")).Visitor, false},
		{"other ua", e.Enrich(hit("192.0.2.1", ua+" ", "", "", "")).Visitor, false},
		{"other secret", other.Enrich(hit("192.0.2.1", ua, "", "", "")).Visitor, false},
	}
	for _, tt := range tests {
		if (tt.got == base) != tt.same {
			t.Errorf("%s: visitor %x vs %x, want same=%v", tt.name, tt.got, base, tt.same)
		}
	}
}

func TestEnrichCopiesIdentity(t *testing.T) {
	e := testEnricher(t, nil)
	h := hit("192.0.2.1", "", "", "", "")
	h.Kind, h.Class, h.LinkID, h.QRID, h.OwnerID = KindQR, ClassPreview, 5, 9, 3
	r := e.Enrich(h)
	if r.Kind != KindQR || r.Class != ClassPreview || r.LinkID != 5 || r.QRID != 9 || r.OwnerID != 3 || r.UnixNano != h.UnixNano {
		t.Fatalf("identity fields not copied: %+v", r)
	}
	if r.TargetID() != 9 {
		t.Fatalf("TargetID of a QR scan = %d, want the QR id 9", r.TargetID())
	}
	if r2 := e.Enrich(h); r2.ClickID == r.ClickID {
		t.Fatal("two enrichments of one hit got the same click id")
	}
}

func BenchmarkEnrich(b *testing.B) {
	e := testEnricher(b, func(netip.Addr) [2]byte { return [2]byte{'D', 'E'} })
	hits := []*Hit{
		hit("192.0.2.1", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36", "https://www.google.com/", "de-DE,de;q=0.9,en;q=0.8", ""),
		hit("2001:db8::7", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", "https://l.facebook.com/l.php", "en-US", "US"),
		hit("198.51.100.9", "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0", "", "fr", ""),
	}
	b.ReportAllocs()
	b.ResetTimer()
	var sink uint64
	for i := 0; b.Loop(); i++ {
		r := e.Enrich(hits[i%len(hits)])
		sink += r.Visitor
	}
	_ = sink
}

package link

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseType(t *testing.T) {
	tests := []struct {
		in      string
		typ     string
		id      int64
		wantErr bool
	}{
		{"direct", "direct", 0, false},
		{"frame", "frame", 0, false},
		{"splash", "splash", 0, false},
		{"overlay", "overlay", 0, false},
		{"splash-12", "splash", 12, false},
		{"overlay-7", "overlay", 7, false},
		{"Direct", "", 0, true},
		{"splash-", "", 0, true},
		{"splash-0", "", 0, true},
		{"splash--1", "", 0, true},
		{"splash-+1", "", 0, true},
		{"frame-3", "", 0, true},
		{"overlay-99999999999999999999", "", 0, true},
		{"", "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			typ, id, err := ParseType(tt.in)
			if (err != nil) != tt.wantErr || typ != tt.typ || id != tt.id {
				t.Errorf("ParseType(%q) = %q, %d, %v", tt.in, typ, id, err)
			}
		})
	}
}

func TestTypeStringRoundTrip(t *testing.T) {
	for _, s := range []string{"direct", "frame", "splash", "overlay", "splash-4", "overlay-9"} {
		typ, id, err := ParseType(s)
		if err != nil {
			t.Fatal(err)
		}
		l := Link{Type: typ}
		if typ == TypeSplash && id != 0 {
			l.SplashID = &id
		}
		if typ == TypeOverlay && id != 0 {
			l.OverlayID = &id
		}
		if got := l.TypeString(); got != s {
			t.Errorf("TypeString = %q, want %q", got, s)
		}
	}
}

func TestParseID(t *testing.T) {
	tests := map[string]int64{"1": 1, "42": 42, "9223372036854775807": 1<<63 - 1}
	for in, want := range tests {
		if got, ok := ParseID(in); !ok || got != want {
			t.Errorf("ParseID(%q) = %d, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "0", "-1", "+1", " 1", "1a", "9223372036854775808", "99999999999999999999", "0x10"} {
		if got, ok := ParseID(in); ok {
			t.Errorf("ParseID(%q) = %d, want failure", in, got)
		}
	}
}

func TestValidMetaImage(t *testing.T) {
	good := []string{"https://cdn.example.com/a.png", "http://x.io/p/IMG.JPG", "https://x.io/a.jpeg?v=2"}
	for _, s := range good {
		if _, err := ValidMetaImage(s); err != nil {
			t.Errorf("ValidMetaImage(%q) = %v", s, err)
		}
	}
	bad := []string{"https://x.io/a.gif", "https://x.io/a.png.exe", "https://x.io/?f=a.png", "javascript:a.png", "ftp://x.io/a.png", ""}
	for _, s := range bad {
		if _, err := ValidMetaImage(s); err == nil {
			t.Errorf("ValidMetaImage(%q) accepted", s)
		}
	}
}

func TestValidHTTPSURL(t *testing.T) {
	if _, err := ValidHTTPSURL("https://apps.example.com/app/id1"); err != nil {
		t.Error(err)
	}
	if _, err := ValidHTTPSURL("http://apps.example.com/"); !errors.Is(err, ErrHTTPSOnly) {
		t.Errorf("http accepted: %v", err)
	}
	if _, err := ValidHTTPSURL("data:x"); !errors.Is(err, ErrURLScheme) {
		t.Errorf("data: %v", err)
	}
}

func TestValidParam(t *testing.T) {
	tests := []struct {
		p     Param
		field string
	}{
		{Param{"utm_source", "news letter"}, ""},
		{Param{"a.b~c-d", ""}, ""},
		{Param{"", "x"}, "name"},
		{Param{strings.Repeat("n", 101), "x"}, "name"},
		{Param{"a b", "x"}, "name"},
		{Param{"a&b", "x"}, "name"},
		{Param{"a=b", "x"}, "name"},
		{Param{"ok", strings.Repeat("v", 501)}, "value"},
		{Param{"ok", "line\nbreak"}, "value"},
	}
	for _, tt := range tests {
		field, err := ValidParam(tt.p)
		if field != tt.field || (err != nil) != (tt.field != "") {
			t.Errorf("ValidParam(%+v) = %q, %v; want field %q", tt.p, field, err, tt.field)
		}
	}
}

func TestLinkPatchApply(t *testing.T) {
	exp := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	ch, dom, splash := int64(3), int64(9), int64(5)
	base := func() Link {
		return Link{LongURL: "https://a.example", Alias: "abcde", Type: TypeSplash, SplashID: &splash,
			PasswordHash: "h", ExpiresAt: &exp, MetaTitle: "t", ChannelID: &ch, Host: "b.example", DomainID: &dom,
			Domain: "https://b.example", PixelIDs: []int64{1, 2}, Parameters: []Param{{"a", "b"}}}
	}
	t.Run("empty patch changes nothing", func(t *testing.T) {
		l, want := base(), base()
		(&LinkPatch{}).Apply(&l)
		if !reflect.DeepEqual(l, want) {
			t.Errorf("got %+v", l)
		}
	})
	t.Run("clears", func(t *testing.T) {
		l := base()
		empty, zero, direct, def := "", int64(0), TypeDirect, ""
		(&LinkPatch{PasswordHash: &empty, ClearExpiry: true, ChannelID: &zero, Type: &direct, Host: &def,
			PixelIDs: &[]int64{}}).Apply(&l)
		if l.PasswordHash != "" || l.ExpiresAt != nil || l.ChannelID != nil || l.Type != TypeDirect ||
			l.SplashID != nil || l.Host != "" || l.DomainID != nil || l.Domain != "" || len(l.PixelIDs) != 0 || l.PixelIDs == nil {
			t.Errorf("got %+v", l)
		}
		if l.LongURL != "https://a.example" || l.MetaTitle != "t" || l.Alias != "abcde" {
			t.Errorf("untouched fields changed: %+v", l)
		}
	})
	t.Run("sets", func(t *testing.T) {
		l := base()
		alias, later := "mine", exp.Add(time.Hour)
		(&LinkPatch{Alias: &alias, ExpiresAt: &later, PixelIDs: &[]int64{7, 3, 7}}).Apply(&l)
		if l.Alias != "mine" || !l.Custom || !l.ExpiresAt.Equal(later) || !reflect.DeepEqual(l.PixelIDs, []int64{3, 7}) {
			t.Errorf("got %+v", l)
		}
		if *base().ExpiresAt != exp {
			t.Error("patch aliased the caller's time")
		}
	})
}

func TestShortURL(t *testing.T) {
	l := Link{Alias: "x1"}
	if got := l.ShortURL("https://sho.rt"); got != "https://sho.rt/x1" {
		t.Error(got)
	}
	l.Domain = "https://go.example.com"
	if got := l.ShortURL("https://sho.rt"); got != "https://go.example.com/x1" {
		t.Error(got)
	}
}

func TestRefError(t *testing.T) {
	if got := (&RefError{Field: "pixels", ID: 4}).Error(); got != "pixels: 4 is not one of your pixels" {
		t.Error(got)
	}
	if got := (&RefError{Field: "domain", Value: "x.io"}).Error(); got != `domain: "x.io" is not one of your domains` {
		t.Error(got)
	}
	if !errors.Is(ErrAliasTaken, ErrConflict) {
		t.Error("ErrAliasTaken must be a conflict")
	}
}

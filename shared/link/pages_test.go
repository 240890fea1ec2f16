package link

import (
	"strings"
	"testing"
)

func TestValidColor(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"#1a2B3c", "#1A2B3C", true},
		{"#000000", "#000000", true},
		{"1a2b3c", "", false},
		{"#1a2b3", "", false},
		{"#1a2b3g", "", false},
		{"#1a2b3c4", "", false},
		{"", "", false},
		// The QR notation, stored as #RRGGBB.
		{"rgb(26,43,60)", "#1A2B3C", true},
		{" RGB( 255 , 0,7 ) ", "#FF0007", true},
		{"rgb(256,0,0)", "", false},
		{"rgb(1,2)", "", false},
		{"rgba(1,2,3,1)", "", false},
		{"red", "", false},
	}
	for _, tt := range tests {
		got, err := ValidColor(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ValidColor(%q) = %q, %v", tt.in, got, err)
		}
	}
}

func TestValidAlias(t *testing.T) {
	for _, ok := range []string{"abc", "a-b_c", "2024-sale", strings.Repeat("x", 64), "ABC"} {
		if err := ValidAlias(ok); err != nil {
			t.Errorf("ValidAlias(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "ab", "123", strings.Repeat("x", 65), "a b", "a/b", "ä-b", "a.b"} {
		if ValidAlias(bad) == nil {
			t.Errorf("ValidAlias(%q) accepted", bad)
		}
	}
}

func TestValidText(t *testing.T) {
	tests := []struct {
		in        string
		max       int
		multiline bool
		ok        bool
	}{
		{"héllo", 5, false, true},
		{"héllo!", 5, false, false},
		{"a\nb", 10, true, true},
		{"a\nb", 10, false, false},
		{"a\x00b", 10, true, false},
		{"a\u0085b", 10, true, false},
		{"a\u2028b", 10, true, false},
		{"\xff", 10, true, false},
	}
	for _, tt := range tests {
		if err := ValidText(tt.in, tt.max, tt.multiline); (err == nil) != tt.ok {
			t.Errorf("ValidText(%q, %d, %v) = %v", tt.in, tt.max, tt.multiline, err)
		}
	}
}

func TestCampaignURLs(t *testing.T) {
	c := Campaign{ID: 42, Slug: "Sale-1"}
	if got := c.RotatorURL("https://sho.rt"); got != "https://sho.rt/r/Sale-1" {
		t.Errorf("rotator = %q", got)
	}
	if got := c.ListURL("https://sho.rt", "al ice"); got != "https://sho.rt/u/al%20ice/Sale-1" {
		t.Errorf("list = %q", got)
	}
	c.Slug = ""
	if got := c.RotatorURL("https://sho.rt"); got != "" {
		t.Errorf("rotator without slug = %q", got)
	}
	if got := c.ListURL("https://sho.rt", "alice"); got != "https://sho.rt/u/alice/42" {
		t.Errorf("list without slug = %q", got)
	}
	if got := BioURL("https://sho.rt", "alice", "me"); got != "https://sho.rt/u/alice/bio/me" {
		t.Errorf("bio = %q", got)
	}
}

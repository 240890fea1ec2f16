package link

import (
	"slices"
	"strings"
	"testing"
)

func TestValidPixelTag(t *testing.T) {
	good := []string{"GTM-ABC123", "AW-123/abc_d", "a", "urn:x.y", strings.Repeat("x", 128)}
	for _, s := range good {
		if err := ValidPixelTag(s); err != nil {
			t.Errorf("ValidPixelTag(%q) = %v", s, err)
		}
	}
	bad := []string{"", strings.Repeat("x", 129), "<script>", `a"b`, "a b", "a'b", "a&b", "a\nb"}
	for _, s := range bad {
		if err := ValidPixelTag(s); err == nil {
			t.Errorf("ValidPixelTag(%q) accepted", s)
		}
	}
}

func TestPixelType(t *testing.T) {
	if len(PixelTypes) != 13 {
		t.Fatalf("%d pixel types, spec 2.10 has 13", len(PixelTypes))
	}
	tests := []struct{ in, want string }{
		{"shortvideo", "shortvideo"},
		{"ShortVideo", "shortvideo"},
		{"tiktok", "shortvideo"},
		{"FBPixel", "socialnetworkpixel"},
		{"gtmpixel", "tagmanagerpixel"},
		{"bing", "searchengine"},
	}
	for _, tt := range tests {
		if got, ok := PixelType(tt.in); !ok || got != tt.want {
			t.Errorf("PixelType(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	for _, bad := range []string{"", "facebook", " fbpixel", "shortvideo ", "pixel"} {
		if got, ok := PixelType(bad); ok {
			t.Errorf("PixelType(%q) = %q, accepted", bad, got)
		}
	}
	// Every alias names a spec type, and each spec type has exactly one alias.
	seen := map[string]bool{}
	for alias, canon := range PixelTypeAliases {
		if !slices.Contains(PixelTypes, canon) || slices.Contains(PixelTypes, alias) || seen[canon] {
			t.Errorf("alias %q -> %q", alias, canon)
		}
		seen[canon] = true
	}
	if len(seen) != len(PixelTypes) {
		t.Errorf("%d of %d types have an alias", len(seen), len(PixelTypes))
	}
}

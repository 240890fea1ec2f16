package link

import (
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

func TestValidPixelType(t *testing.T) {
	if len(PixelTypes) != 13 {
		t.Fatalf("%d pixel types, spec 2.10 has 13", len(PixelTypes))
	}
	if !ValidPixelType("shortvideo") || ValidPixelType("ShortVideo") || ValidPixelType("") {
		t.Error("ValidPixelType wrong")
	}
}

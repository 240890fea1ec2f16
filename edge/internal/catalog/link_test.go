package catalog

import (
	"testing"

	"kurz/shared/link"
)

// Status travels into the flags byte: public links have their stats page,
// negative entries are neither.
func TestLinkFlags(t *testing.T) {
	for _, public := range []bool{true, false} {
		l, _, err := Compile(&link.EdgeLink{ID: 1, Alias: "a", LongURL: "https://example.com/", Type: "direct", Public: public})
		if err != nil {
			t.Fatal(err)
		}
		if l.Public() != public || l.Missing() {
			t.Fatalf("public %v: Public() = %v, Missing() = %v", public, l.Public(), l.Missing())
		}
	}
	if m, _ := missing("", "a"); !m.Missing() || m.Public() {
		t.Fatal("a negative entry must be missing and not public")
	}
}

package link_test

import (
	"errors"
	"testing"

	"kurz/shared/link"
)

func TestWithParams(t *testing.T) {
	utm := []link.Param{{Name: "utm_source", Value: "news letter"}, {Name: "ref", Value: "a&b=c"}}
	tests := []struct {
		name, raw string
		params    []link.Param
		want      string
	}{
		{"none", "https://example.com/a?x=1#top", nil, "https://example.com/a?x=1#top"},
		{"added", "https://example.com/a", utm, "https://example.com/a?utm_source=news+letter&ref=a%26b%3Dc"},
		{"after the query, before the fragment", "https://example.com/a?x=1#top", utm,
			"https://example.com/a?x=1&utm_source=news+letter&ref=a%26b%3Dc#top"},
		{"replaces every same-named pair, keeps the others' order", "https://example.com/?ref=old&x=1&utm_source=old&ref=older&y=2",
			utm, "https://example.com/?x=1&y=2&utm_source=news+letter&ref=a%26b%3Dc"},
		{"matches encoded names", "https://example.com/?utm%5Fsource=old&z=3", utm, "https://example.com/?z=3&utm_source=news+letter&ref=a%26b%3Dc"},
		{"skips nameless", "https://example.com/", []link.Param{{Name: "", Value: "x"}, {Name: "a", Value: ""}}, "https://example.com/?a="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := link.WithParams(tt.raw, tt.params)
			if err != nil || got != tt.want {
				t.Errorf("WithParams(%q) = %q, %v; want %q", tt.raw, got, err, tt.want)
			}
		})
	}
	if _, err := link.WithParams("javascript:alert(1)", utm); err == nil {
		t.Error("an unsafe destination was accepted")
	}
	if _, err := link.WithParams("https://example.com/", []link.Param{{Name: "a", Value: string(make([]byte, 9000))}}); !errors.Is(err, link.ErrBadParam) {
		t.Errorf("a parameter making the URL too long: %v, want ErrBadParam", err)
	}
}

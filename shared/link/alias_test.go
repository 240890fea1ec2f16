package link

import (
	"errors"
	"strings"
	"testing"
)

func TestValidCustomAlias(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"abc", nil},
		{"My-Link_2024", nil},
		{strings.Repeat("a", 64), nil},
		{"ab", ErrAliasLength},
		{"", ErrAliasLength},
		{strings.Repeat("a", 65), ErrAliasLength},
		{"has space", ErrAliasChars},
		{"dot.ted", ErrAliasChars},
		{"slash/x", ErrAliasChars},
		{"ümlaut", ErrAliasChars},
		{"percent%41", ErrAliasChars},
		{"api", ErrAliasReserved},
		{"API", ErrAliasReserved},
		{"healthz", ErrAliasReserved},
		{"Admin", ErrAliasReserved},
		{"qr-code", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if err := ValidCustomAlias(tt.in); !errors.Is(err, tt.want) {
				t.Errorf("ValidCustomAlias(%q) = %v, want %v", tt.in, err, tt.want)
			}
		})
	}
}

func TestIsReserved(t *testing.T) {
	for _, s := range []string{"api", "r", "u", "q", "qr", "healthz", "readyz", "metrics", "static",
		"favicon.ico", "robots.txt", "admin", "login", "LOGIN", ".well-known"} {
		if !IsReserved(s) {
			t.Errorf("IsReserved(%q) = false", s)
		}
	}
	for _, s := range []string{"apix", "rr", "abcde", "", strings.Repeat("a", 40)} {
		if IsReserved(s) {
			t.Errorf("IsReserved(%q) = true", s)
		}
	}
}

func TestIsAliasSyntax(t *testing.T) {
	tests := map[string]bool{"a": true, "aB3-_": true, "": false, "a.b": false, "a/b": false, strings.Repeat("x", 65): false}
	for in, want := range tests {
		if got := IsAliasSyntax(in); got != want {
			t.Errorf("IsAliasSyntax(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestRandomAliasLenFor(t *testing.T) {
	want := []int{5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8}
	for attempt, w := range want {
		if got := RandomAliasLenFor(attempt); got != w {
			t.Errorf("RandomAliasLenFor(%d) = %d, want %d", attempt, got, w)
		}
	}
	if len(want) != MaxRandomAliasAttempts {
		t.Errorf("MaxRandomAliasAttempts = %d, test covers %d", MaxRandomAliasAttempts, len(want))
	}
}

package link

import "testing"

func TestIsReservedUsername(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"admin", true},
		{"Admin", true},
		{"ADMINISTRATOR", true},
		{"kurz", true},
		{"support", true},
		{"postmaster", true},
		{"no-reply", true},
		{"null", true},
		{"qr", true},
		{"alice", false},
		{"admin2", false}, // exact names only: a prefix rule would refuse too many
		{"kurzfan", false},
		{"", false},
	} {
		if got := IsReservedUsername(tc.in); got != tc.want {
			t.Errorf("IsReservedUsername(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	// Every entry is stored in lower case, or the case-insensitive lookup
	// could never find it.
	for name := range reservedUsernames {
		if !IsReservedUsername(name) {
			t.Errorf("table entry %q is not found (not lower case?)", name)
		}
	}
}

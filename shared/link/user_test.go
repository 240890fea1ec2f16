package link

import (
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2030-01-31 12:34:56", time.Date(2030, 1, 31, 12, 34, 56, 0, time.UTC), true},
		{"2030-01-31", time.Date(2030, 1, 31, 23, 59, 59, 0, time.UTC), true},
		{"2028-02-29", time.Date(2028, 2, 29, 23, 59, 59, 0, time.UTC), true},
		{"2030-02-30", time.Time{}, false},
		{"2030-1-31", time.Time{}, false},
		{"31.01.2030", time.Time{}, false},
		{"2030-01-31T12:00:00", time.Time{}, false},
		{"", time.Time{}, false},
	} {
		got, err := ParseTime(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseTime(%q) error %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && !got.Equal(tc.want) {
			t.Errorf("ParseTime(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

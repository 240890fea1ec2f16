package price

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestNormalizeSymbol(t *testing.T) {
	tests := []struct {
		in, want string
		rule     string // "" = valid
	}{
		{"AAPL", "AAPL", ""},
		{"  aapl \t", "AAPL", ""},
		{"brk.b", "BRK.B", ""},
		{"RDS-A", "RDS-A", ""},
		{"xetra:sap", "XETRA:SAP", ""},
		{"7203", "7203", ""},
		{"A", "A", ""},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", ""},
		{"", "", "required"},
		{"   ", "", "required"},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456", "", "must be 1 to 32"},
		{"AA PL", "", "must be"},
		{"AAPL;DROP", "", "must be"},
		{"A:B:C", "", "must be"},
		{":AAPL", "", "must be"},
		{"NYSE:", "", "must be"},
		{".AAPL", "", "must be"},
		{"NYSE:-X", "", "must be"},
		{"ÄPFEL", "", "must be"},
		{"^GSPC", "", "must be"},
		{"a/b", "", "must be"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := NormalizeSymbol(tt.in)
			checkField(t, err, "symbol", tt.rule)
			if tt.rule == "" && got != tt.want {
				t.Errorf("NormalizeSymbol(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParsePrice(t *testing.T) {
	tests := []struct {
		in, want string
		rule     string
	}{
		{"189.25", "189.25", ""},
		{"189.250", "189.250", ""}, // the feed's precision is kept
		{" 0189.25 ", "189.25", ""},
		{"100", "100", ""},
		{"0.0001", "0.0001", ""},
		{".5", "0.5", ""},
		{"5.", "5", ""},
		{"1.8925e2", "189.25", ""},
		{"1.8925E+2", "189.25", ""},
		{"12345e-4", "1.2345", ""},
		{"5e-10", "0.0000000005", ""},
		{"2e3", "2000", ""},
		{"0.1", "0.1", ""},
		{"999999999999999999.9999999999", "999999999999999999.9999999999", ""},
		{"", "", "required"},
		{"0", "", "greater than 0"},
		{"0.000", "", "greater than 0"},
		{"-1", "", "greater than 0"},
		{"+1", "", "must be a decimal"},
		{"abc", "", "must be a decimal"},
		{"1,5", "", "must be a decimal"},
		{"1.2.3", "", "must be a decimal"},
		{".", "", "must be a decimal"},
		{"NaN", "", "must be a decimal"},
		{"Infinity", "", "must be a decimal"},
		{"1e", "", "must be a decimal"},
		{"1e1000", "", "must be a decimal"},
		{"1e999", "", "less than 10^18"},
		{"1e18", "", "less than 10^18"},
		{"1e99", "", "less than 10^18"},
		{"1000000000000000000", "", "less than 10^18"},
		{"0.00000000001", "", "at most 10 decimal places"},
		{"1e-11", "", "at most 10 decimal places"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePrice(tt.in)
			checkField(t, err, "price", tt.rule)
			if tt.rule == "" && got != tt.want {
				t.Errorf("ParsePrice(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalizeCurrency(t *testing.T) {
	tests := []struct{ in, want, rule string }{
		{"USD", "USD", ""},
		{" eur ", "EUR", ""},
		{"GBX", "GBX", ""},
		{"", "", "required"},
		{"US", "", "three-letter"},
		{"USDT", "", "three-letter"},
		{"U5D", "", "three-letter"},
		{"€", "", "three-letter"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := NormalizeCurrency(tt.in)
			checkField(t, err, "currency", tt.rule)
			if tt.rule == "" && got != tt.want {
				t.Errorf("NormalizeCurrency(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseTickTime(t *testing.T) {
	now := time.Date(2026, 11, 21, 16, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
		rule string
	}{
		{"2026-11-21T16:00:00Z", now, ""},
		{"2026-11-21T17:00:00+01:00", now, ""},
		{"2026-11-21T15:59:59.1234567Z", time.Date(2026, 11, 21, 15, 59, 59, 123456000, time.UTC), ""},
		{"2026-11-21T16:04:59Z", now.Add(4*time.Minute + 59*time.Second), ""},
		{"", time.Time{}, "required"},
		// The link API's timestamp form, read as UTC (issue 13).
		{"2026-11-21 16:00:00", now, ""},
		{" 2026-11-21 15:00:00 ", now.Add(-time.Hour), ""},
		{"2026-11-21 15:59:59.25", time.Date(2026, 11, 21, 15, 59, 59, 250000000, time.UTC), ""},
		{"1999-01-02 03:04:05", time.Date(1999, 1, 2, 3, 4, 5, 0, time.UTC), ""},
		{"2026-11-21 16:05:01", time.Time{}, "future"},
		{"1969-12-31 00:00:00", time.Time{}, "after 1970"},
		{"2026-11-21 16:00", time.Time{}, "YYYY-MM-DD HH:MM:SS"},
		{"2026-11-21 16:00:00 UTC", time.Time{}, "YYYY-MM-DD HH:MM:SS"},
		{"2026-11-21 16:00:00+01:00", time.Time{}, "YYYY-MM-DD HH:MM:SS"},
		{"21.11.2026 16:00:00", time.Time{}, "YYYY-MM-DD HH:MM:SS"},
		{"2026-13-01 00:00:00", time.Time{}, "YYYY-MM-DD HH:MM:SS"},
		{"2026-11-21T16:00:00", time.Time{}, "RFC 3339"},
		{"1700000000", time.Time{}, "RFC 3339"},
		{"2026-11-21T16:05:01Z", time.Time{}, "future"},
		{"2099-01-01T00:00:00Z", time.Time{}, "future"},
		{"1969-12-31T00:00:00Z", time.Time{}, "after 1970"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTickTime(tt.in, now)
			checkField(t, err, "timestamp", tt.rule)
			if tt.rule == "" && (!got.Equal(tt.want) || got.Location() != time.UTC) {
				t.Errorf("ParseTickTime(%q) = %v, want %v UTC", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseJSONTick(t *testing.T) {
	now := time.Date(2026, 11, 21, 16, 0, 0, 0, time.UTC)
	tests := []struct {
		name, in string
		price    string
		field    string // "" = valid
	}{
		{"number", `{"symbol":"aapl","price":189.25,"currency":"usd","timestamp":"2026-11-21T16:00:00Z"}`, "189.25", ""},
		{"string price", `{"symbol":"AAPL","price":"189.250","currency":"USD","timestamp":"2026-11-21T16:00:00Z"}`, "189.250", ""},
		{"long number stays exact", `{"symbol":"AAPL","price":189.2500000001,"currency":"USD","timestamp":"2026-11-21T16:00:00Z"}`, "189.2500000001", ""},
		{"spaced UTC timestamp (push and JSON lines too)", `{"symbol":"AAPL","price":1,"currency":"USD","timestamp":"2026-11-21 16:00:00"}`, "1", ""},
		{"extra keys ignored", `{"symbol":"AAPL","price":1,"currency":"USD","timestamp":"2026-11-21T16:00:00Z","volume":5}`, "1", ""},
		{"not an object", `[1]`, "", "tick"},
		{"garbage", `{"symbol":`, "", "tick"},
		{"missing symbol", `{"price":1,"currency":"USD","timestamp":"2026-11-21T16:00:00Z"}`, "", "symbol"},
		{"symbol number", `{"symbol":5,"price":1,"currency":"USD","timestamp":"2026-11-21T16:00:00Z"}`, "", "symbol"},
		{"price bool", `{"symbol":"A","price":true,"currency":"USD","timestamp":"2026-11-21T16:00:00Z"}`, "", "price"},
		{"price null", `{"symbol":"A","price":null,"currency":"USD","timestamp":"2026-11-21T16:00:00Z"}`, "", "price"},
		{"currency missing", `{"symbol":"A","price":1,"timestamp":"2026-11-21T16:00:00Z"}`, "", "currency"},
		{"timestamp number", `{"symbol":"A","price":1,"currency":"USD","timestamp":1700000000}`, "", "timestamp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseJSONTick([]byte(tt.in), now)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if q.Price != tt.price || q.Symbol != "AAPL" && q.Symbol != "A" || q.Currency != "USD" || !q.QuotedAt.Equal(now) {
					t.Errorf("tick = %+v", q)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field {
				t.Fatalf("err = %v, want a FieldError on %q", err, tt.field)
			}
		})
	}
}

// checkField fails unless err is nil (rule "") or a FieldError on field
// whose rule contains rule.
func checkField(t *testing.T, err error, field, rule string) {
	t.Helper()
	if rule == "" {
		if err != nil {
			t.Fatalf("unexpected error %v", err)
		}
		return
	}
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a FieldError", err)
	}
	if fe.Field != field || !strings.Contains(fe.Rule, rule) {
		t.Errorf("error %q, want field %q with rule containing %q", fe.Error(), field, rule)
	}
}

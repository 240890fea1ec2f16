package price

import (
	"strings"
	"time"
)

// FieldError is a validation failure of one tick field; the API turns it
// into a 400 naming the field, the importer into a line of its report.
type FieldError struct {
	Field string
	Rule  string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Rule }

// Limits of the accepted values.
const (
	MaxSymbolLen = 32
	// MaxIntDigits and MaxFracDigits bound a price so it fits ClickHouse's
	// Decimal(38, 10) exactly.
	MaxIntDigits  = 18
	MaxFracDigits = 10
	// MaxFutureSkew is how far a tick's time may lie ahead of our clock. A
	// tick from the far future would freeze the symbol (older ticks never
	// overwrite newer ones), so it is rejected instead.
	MaxFutureSkew = 5 * time.Minute
)

// minTickTime is the earliest storable tick time (ClickHouse DateTime
// starts at the Unix epoch).
var minTickTime = time.Date(1970, 1, 2, 0, 0, 0, 0, time.UTC)

const symbolRule = "must be 1 to 32 letters, digits, '.' or '-', optionally prefixed by an exchange and ':' (e.g. AAPL, BRK.B, XETRA:SAP)"

// NormalizeSymbol trims and upper-cases a listing symbol and checks its
// form: ASCII letters, digits, '.', '-', at most one ':' separating an
// exchange from the symbol; each part starts with a letter or digit.
func NormalizeSymbol(raw string) (string, error) {
	s := strings.ToUpper(strings.TrimSpace(raw))
	if s == "" {
		return "", &FieldError{"symbol", "required"}
	}
	if len(s) > MaxSymbolLen {
		return "", &FieldError{"symbol", symbolRule}
	}
	colons := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.' || c == '-':
			if i == 0 || s[i-1] == ':' {
				return "", &FieldError{"symbol", symbolRule}
			}
		case c == ':':
			colons++
			if colons > 1 || i == 0 || i == len(s)-1 {
				return "", &FieldError{"symbol", symbolRule}
			}
		default:
			return "", &FieldError{"symbol", symbolRule}
		}
	}
	return s, nil
}

// NormalizeCurrency upper-cases an ISO 4217-shaped code (three letters).
// Whether the code is assigned is not checked: vendors quote in codes such
// as GBX (pence) that ISO 4217 does not list.
func NormalizeCurrency(raw string) (string, error) {
	c := strings.ToUpper(strings.TrimSpace(raw))
	if c == "" {
		return "", &FieldError{"currency", "required"}
	}
	if len(c) != 3 || !isUpper(c[0]) || !isUpper(c[1]) || !isUpper(c[2]) {
		return "", &FieldError{"currency", "must be a three-letter ISO 4217 code such as USD"}
	}
	return c, nil
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

const priceRule = "must be a decimal number greater than 0 such as 189.25"

// ParsePrice checks a decimal number and returns its canonical text: no
// sign, no exponent, no superfluous leading zeros; trailing fraction zeros
// are kept (they are the instrument's precision). Exponent forms such as
// 1.8925e2 are accepted from JSON and shifted exactly, without floats.
func ParsePrice(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", &FieldError{"price", "required"}
	}
	mant, exp, err := splitExponent(s)
	if err != nil {
		return "", err
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart+frac == "" || !allDigits(intPart) || !allDigits(frac) {
		return "", &FieldError{"price", priceRule}
	}
	digits := intPart + frac
	point := len(intPart) + exp
	// Bound the shift before building strings from it.
	if point > MaxIntDigits+len(digits) {
		return "", &FieldError{"price", "must be less than 10^18"}
	}
	if point < -MaxFracDigits-len(digits) {
		return "", &FieldError{"price", "must have at most 10 decimal places"}
	}
	switch {
	case point <= 0:
		intPart, frac = "0", strings.Repeat("0", -point)+digits
	case point >= len(digits):
		intPart, frac = digits+strings.Repeat("0", point-len(digits)), ""
	default:
		intPart, frac = digits[:point], digits[point:]
	}
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	if strings.Trim(intPart+frac, "0") == "" {
		return "", &FieldError{"price", priceRule}
	}
	if len(intPart) > MaxIntDigits {
		return "", &FieldError{"price", "must be less than 10^18"}
	}
	if len(frac) > MaxFracDigits {
		return "", &FieldError{"price", "must have at most 10 decimal places"}
	}
	if frac == "" {
		return intPart, nil
	}
	return intPart + "." + frac, nil
}

// splitExponent separates "1.5e-3" into "1.5" and -3. A leading '-' or '+'
// on the mantissa is refused: prices are positive and canonical.
func splitExponent(s string) (string, int, error) {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return s, 0, nil
	}
	e := s[i+1:]
	neg := false
	if e != "" && (e[0] == '+' || e[0] == '-') {
		neg, e = e[0] == '-', e[1:]
	}
	if e == "" || len(e) > 3 || !allDigits(e) {
		return "", 0, &FieldError{"price", priceRule}
	}
	n := 0
	for _, c := range []byte(e) {
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return s[:i], n, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// SpacedTimeLayout is the timestamp form of the link-management API
// ("2026-11-21 16:00:00"), accepted for ticks too and read as UTC: spreadsheet
// and database exports write it, and the API's own clients know it.
const SpacedTimeLayout = "2006-01-02 15:04:05"

const timeRule = "must be an RFC 3339 time such as 2026-11-21T16:00:00Z, or YYYY-MM-DD HH:MM:SS in UTC"

// ParseTickTime parses an RFC 3339 time or a SpacedTimeLayout time (UTC)
// and checks it against now: not before 1970-01-02 and at most
// MaxFutureSkew ahead. A time without an offset in RFC 3339 form
// ("2026-11-21T16:00:00") stays an error: its "T" suggests an ISO 8601
// local time, and guessing its zone would shift quotes silently.
func ParseTickTime(raw string, now time.Time) (time.Time, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return time.Time{}, &FieldError{"timestamp", "required"}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		// time.Parse reads a layout without a zone as UTC.
		t, err = time.Parse(SpacedTimeLayout, s)
	}
	if err != nil {
		return time.Time{}, &FieldError{"timestamp", timeRule}
	}
	return CheckTickTime(t, now)
}

// CheckTickTime checks a tick time's range and returns it in UTC, rounded
// to the microsecond PostgreSQL stores.
func CheckTickTime(t, now time.Time) (time.Time, error) {
	t = t.UTC().Truncate(time.Microsecond)
	if t.Before(minTickTime) {
		return time.Time{}, &FieldError{"timestamp", "must be after 1970-01-02"}
	}
	if t.After(now.Add(MaxFutureSkew)) {
		return time.Time{}, &FieldError{"timestamp", "must not lie more than 5 minutes in the future"}
	}
	return t, nil
}

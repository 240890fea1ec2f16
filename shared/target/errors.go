package target

import (
	"errors"
	"strconv"
)

// Sentinel errors wrapped by the Normalize* functions and by RuleError.
var (
	ErrUnknownCountry = errors.New("unknown country")
	ErrUnknownDevice  = errors.New("unknown device")
	ErrBadLanguage    = errors.New("invalid language")
	ErrEmptyURL       = errors.New("empty link")
	ErrDuplicate      = errors.New("duplicate")
	ErrTooManyRules   = errors.New("too many rules")
)

// MaxRules caps each rule list. It is above the number of countries, so a
// link can target every country, and keeps the edge's linear scans bounded.
const MaxRules = 256

// RuleError reports an invalid rule by its position in the API's write
// payload, e.g. `geotarget[1].location: unknown country "atlantis"`.
type RuleError struct {
	List  string // "geotarget", "devicetarget" or "languagetarget"
	Index int    // position in the list; -1 when the whole list is at fault
	Field string // "location", "device", "language" or "link"; "" with Index -1
	Err   error  // wraps one of the sentinel errors above
}

// Path names the offending field in the API's terms: "geotarget[1].location".
func (e *RuleError) Path() string {
	if e.Index < 0 {
		return e.List
	}
	return e.List + "[" + strconv.Itoa(e.Index) + "]." + e.Field
}

func (e *RuleError) Error() string { return e.Path() + ": " + e.Err.Error() }

func (e *RuleError) Unwrap() error { return e.Err }

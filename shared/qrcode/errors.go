package qrcode

import (
	"errors"
	"strconv"
)

// ValidationError reports bad input for one field of a QR request. Field is
// the JSON path the API should name (for example "data.ssid"), Rule says in
// plain words what the value must be. Error() gives "data.ssid: required",
// which the API can return as a 400 message unchanged.
type ValidationError struct {
	Field string
	Rule  string
}

func (e *ValidationError) Error() string { return e.Field + ": " + e.Rule }

// invalid is shorthand for building a *ValidationError.
func invalid(field, rule string) error { return &ValidationError{Field: field, Rule: rule} }

// ErrSizeTooSmall is wrapped by *SizeError; match it with errors.Is.
var ErrSizeTooSmall = errors.New("size too small for this code")

// SizeError says a PNG of the requested size cannot give every module at least
// one pixel. Min is the smallest size that works for this content.
type SizeError struct {
	Size, Min int
}

func (e *SizeError) Error() string {
	return "size " + strconv.Itoa(e.Size) + " too small for this code: need at least " + strconv.Itoa(e.Min)
}

func (e *SizeError) Unwrap() error { return ErrSizeTooSmall }

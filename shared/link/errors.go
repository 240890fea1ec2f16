package link

import "errors"

// Sentinel errors returned by stores; callers test them with errors.Is.
var (
	// ErrNotFound: no such record, or not the caller's (never leak existence).
	ErrNotFound = errors.New("not found")
	// ErrConflict: a unique value (email, alias, slug, host) is taken.
	ErrConflict = errors.New("conflict")
	// ErrUnavailable: a store could not be reached in time.
	ErrUnavailable = errors.New("store unavailable")
)

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
	// ErrUnstorable: the input holds characters the store cannot keep (NUL,
	// or an escape PostgreSQL's jsonb refuses). Validation should catch
	// these first; this keeps a miss a 400 instead of a 500.
	ErrUnstorable = errors.New("contains characters that cannot be stored (NUL or invalid Unicode)")
)

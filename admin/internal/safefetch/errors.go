package safefetch

import "errors"

// Every error Fetch returns wraps exactly one of these, so the API can answer
// "logo: address not allowed", "logo: too large" and so on with errors.Is.
var (
	// ErrBadURL: not an absolute http/https URL with a host (also for a
	// redirect to such a URL).
	ErrBadURL = errors.New("url not allowed")
	// ErrAddrNotAllowed: the host resolved to, or a redirect led to, an
	// address IsAllowed (or Options.AllowAddr) refuses.
	ErrAddrNotAllowed = errors.New("address not allowed")
	// ErrTooLarge: the body is longer than Options.MaxBytes.
	ErrTooLarge = errors.New("too large")
	// ErrFetchFailed: anything else (DNS, connect, TLS, timeout, non-200
	// status, too many redirects).
	ErrFetchFailed = errors.New("fetch failed")
)

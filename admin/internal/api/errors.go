package api

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"kurz/shared/link"
)

// Error is an API error: a status code and a message safe to show the
// client. Handlers return it; writeError turns it into the spec's body
// {"error":1,"message":"..."}.
type Error struct {
	Status  int
	Message string
	// RetryAfter is the wait in seconds a 429 names (0 otherwise).
	RetryAfter int
}

func (e *Error) Error() string { return fmt.Sprintf("%d: %s", e.Status, e.Message) }

// Errorf builds an Error with a formatted message.
func Errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Message: fmt.Sprintf(format, args...)}
}

// BadRequest is a 400 naming the field and the rule it broke.
func BadRequest(field, rule string) *Error {
	return &Error{Status: http.StatusBadRequest, Message: field + ": " + rule}
}

// NotFound is the 404 for a record that does not exist or is not the
// caller's; both look the same so ids of other users leak nothing.
func NotFound(what string) *Error {
	return &Error{Status: http.StatusNotFound, Message: what + " not found"}
}

// Conflict is a 409 with a message.
func Conflict(msg string) *Error { return &Error{Status: http.StatusConflict, Message: msg} }

// writeError maps any error to a status and the error body. Unknown errors
// are logged and become a 500 without internals; store outages become 503.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var apiErr *Error
	switch {
	case errors.As(err, &apiErr):
	case errors.Is(err, link.ErrNotFound):
		apiErr = NotFound("record")
	case errors.Is(err, link.ErrConflict):
		apiErr = Conflict("a record with this value already exists")
	case errors.Is(err, link.ErrUnstorable):
		apiErr = &Error{Status: http.StatusBadRequest, Message: "request " + link.ErrUnstorable.Error()}
	case errors.Is(err, link.ErrUnavailable):
		log.Warn("store unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
		apiErr = &Error{Status: http.StatusServiceUnavailable, Message: "service temporarily unavailable, try again shortly"}
	default:
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		apiErr = &Error{Status: http.StatusInternalServerError, Message: "internal error"}
	}
	if apiErr.Status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	writeJSON(w, apiErr.Status, errorBody{Error: 1, Message: apiErr.Message})
}

type errorBody struct {
	Error   int    `json:"error"`
	Message string `json:"message"`
}

package dashboard

import (
	"errors"
	"net/http"

	"kurz/admin/internal/api"
	"kurz/shared/link"
)

// pageError is a failure shown as a whole page: a status, a heading and a
// sentence for the person who got it.
type pageError struct {
	status int
	title  string
	text   string
}

func (e *pageError) Error() string { return e.title + ": " + e.text }

// Title and Text are what the error page shows.
func (e *pageError) Title() string { return e.title }
func (e *pageError) Text() string  { return e.text }

// errNotFound is every missing page and every record that is missing or
// not the caller's: the two look the same.
var errNotFound = &pageError{status: http.StatusNotFound, title: "Not found",
	text: "This page does not exist, or what it shows is not yours."}

var (
	errUnavailable = &pageError{status: http.StatusServiceUnavailable, title: "Temporarily unavailable",
		text: "The service cannot reach its database right now. Try again in a few seconds."}
	errInternal = &pageError{status: http.StatusInternalServerError, title: "Something went wrong",
		text: "The server failed to answer. The problem has been logged; try again later."}
)

// fail shows err as an error page. Failures of the server are logged;
// their details never reach the page.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, c *call, err error) {
	pe := s.pageErrorOf(r, err)
	if pe.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	s.render(w, r, c, pe.status, "error", pe.title, pe)
}

func (s *Server) pageErrorOf(r *http.Request, err error) *pageError {
	var pe *pageError
	var ae *api.Error
	switch {
	case errors.As(err, &pe):
		return pe
	case errors.As(err, &ae):
		switch {
		case ae.Status == http.StatusNotFound:
			return errNotFound
		case ae.Status == http.StatusServiceUnavailable:
			return &pageError{status: ae.Status, title: "Server busy", text: sentence(ae.Message)}
		case ae.Status >= 500:
			s.log.Error("dashboard request failed", "method", r.Method, "path", r.URL.Path, "err", err)
			return errInternal
		}
		return &pageError{status: ae.Status, title: "Request refused", text: sentence(ae.Message)}
	case errors.Is(err, link.ErrNotFound):
		return errNotFound
	case errors.Is(err, link.ErrUnavailable):
		s.log.Warn("store unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
		return errUnavailable
	}
	s.log.Error("dashboard request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	return errInternal
}

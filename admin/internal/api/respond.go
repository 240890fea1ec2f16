package api

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// writeJSON writes v with status. Encoding errors can only come from our
// own types, so they are a programming error and end up as a broken body
// the test suite would catch.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
}

// OK writes a single-object success: {"error":0, ...fields}.
func OK(w http.ResponseWriter, fields map[string]any) error {
	body := make(map[string]any, len(fields)+1)
	body["error"] = 0
	for k, v := range fields {
		body[k] = v
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

// Message writes {"error":0,"message":msg}.
func Message(w http.ResponseWriter, msg string) error {
	writeJSON(w, http.StatusOK, map[string]any{"error": 0, "message": msg})
	return nil
}

// Paging limits (spec 2.1 leaves them open; documented in docs/api.md).
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// Page is a validated limit/page pair from the query string.
type Page struct {
	Limit int
	Page  int
}

// Offset is the number of records before this page.
func (p Page) Offset() int { return (p.Page - 1) * p.Limit }

// ParsePage reads limit and page from the query. Invalid values are a 400,
// never a silent clamp.
func ParsePage(r *http.Request) (Page, error) {
	p := Page{Limit: DefaultLimit, Page: 1}
	q := r.URL.Query()
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxLimit {
			return p, BadRequest("limit", "must be an integer from 1 to "+strconv.Itoa(MaxLimit))
		}
		p.Limit = n
	}
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1_000_000 {
			return p, BadRequest("page", "must be an integer from 1 to 1000000")
		}
		p.Page = n
	}
	return p, nil
}

// List writes the paged envelope of spec 2.1. total is the number of
// records over all pages; items must be a non-nil slice (an empty list is
// [] in JSON). error is the integer 0 as in every other success: the
// spec's samples show the string "0", but strict clients of this API
// (error != 0, !data.error) treat any string as a failure.
func List(w http.ResponseWriter, p Page, total int, key string, items any) error {
	return ListExtra(w, p, total, key, items, nil)
}

// ListExtra is List with extra keys in "data" (documented extensions such
// as statsAvailable).
func ListExtra(w http.ResponseWriter, p Page, total int, key string, items any, extra map[string]any) error {
	maxPage := (total + p.Limit - 1) / p.Limit
	if maxPage < 1 {
		maxPage = 1
	}
	next := 0
	if p.Page < maxPage {
		next = p.Page + 1
	}
	data := map[string]any{
		"result":      total,
		"perpage":     p.Limit,
		"currentpage": p.Page,
		"nextpage":    next,
		"maxpage":     maxPage,
		key:           items,
	}
	for k, v := range extra {
		data[k] = v
	}
	writeJSON(w, http.StatusOK, map[string]any{"error": 0, "data": data})
	return nil
}

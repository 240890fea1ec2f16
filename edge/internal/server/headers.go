package server

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

// reqHeaders are the request headers the rules read, found in one pass
// over the headers instead of one normalising Peek each.
type reqHeaders struct {
	lang, xff, purpose, country []byte
	xffLines                    int // X-Forwarded-For lines joined into xff
}

var (
	hAcceptLanguage = []byte("Accept-Language")
	hXForwardedFor  = []byte("X-Forwarded-For")
	hSecPurpose     = []byte("Sec-Purpose")
	hPurpose        = []byte("Purpose")
	hXPurpose       = []byte("X-Purpose")
	hXMoz           = []byte("X-Moz")
)

func (s *Server) scanHeaders(h *fasthttp.RequestHeader) reqHeaders {
	var r reqHeaders
	secPurpose := false
	for k, v := range h.All() {
		switch {
		case headerIs(k, hAcceptLanguage):
			r.lang = v
		case headerIs(k, hXForwardedFor):
			r.addXFF(v)
		case headerIs(k, hSecPurpose):
			r.purpose, secPurpose = v, true
		case !secPurpose && (headerIs(k, hPurpose) || headerIs(k, hXPurpose) || headerIs(k, hXMoz)):
			r.purpose = v
		case len(s.countryHeader) > 0 && headerIs(k, s.countryHeader):
			r.country = v
		}
	}
	return r
}

// headerIs compares a header name ignoring case. Lengths first: most of a
// request's headers differ in length from each name asked for, and
// bytes.EqualFold finds a length difference only after comparing the
// common prefix ("Accept-Encoding" against "Accept-Language"); the seven
// comparisons per header were ~1% of the edge's CPU.
func headerIs(k, name []byte) bool {
	return len(k) == len(name) && bytes.EqualFold(k, name)
}

// addXFF adds an X-Forwarded-For line: several lines are one list,
// joined with "," in order (RFC 9110, 5.3). The first line is used in
// place; only a request with several lines pays for a copy, into one
// growing buffer, so a flood of lines costs linear time.
func (r *reqHeaders) addXFF(line []byte) {
	r.xffLines++
	switch r.xffLines {
	case 1:
		r.xff = line
		return
	case 2:
		r.xff = append(make([]byte, 0, 2*(len(r.xff)+1+len(line))), r.xff...)
	}
	r.xff = append(append(r.xff, ','), line...)
}

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
		case bytes.EqualFold(k, hAcceptLanguage):
			r.lang = v
		case bytes.EqualFold(k, hXForwardedFor):
			r.addXFF(v)
		case bytes.EqualFold(k, hSecPurpose):
			r.purpose, secPurpose = v, true
		case !secPurpose && (bytes.EqualFold(k, hPurpose) || bytes.EqualFold(k, hXPurpose) || bytes.EqualFold(k, hXMoz)):
			r.purpose = v
		case len(s.countryHeader) > 0 && bytes.EqualFold(k, s.countryHeader):
			r.country = v
		}
	}
	return r
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

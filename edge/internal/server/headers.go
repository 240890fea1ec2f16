package server

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

// reqHeaders are the request headers the rules read, found in one pass
// over the headers instead of one normalising Peek each.
type reqHeaders struct {
	lang, xff, purpose, country []byte
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
			r.xff = v
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

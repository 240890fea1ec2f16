package dashboard

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"kurz/shared/qrcode"
)

// CSRF defence, two layers on every POST (route):
//  1. Go's cross-origin protection refuses what a browser marks as sent
//     by another site (Sec-Fetch-Site, else Origin against Host).
//  2. A synchronizer token: each form carries csrfField, the HMAC of the
//     session id (or, before sign-in, of the pre-session cookie) under a
//     key derived from KURZ_SECRET. Another site can neither read the
//     token nor make one, and it changes with every sign-in. No state is
//     stored: the token is recomputed from the cookie.

// csrfField is the form field (and csrfHeader the header, for scripts)
// carrying the token.
const (
	csrfField  = "csrf"
	csrfHeader = "X-CSRF-Token"
)

// keys are the dashboard's HMAC keys, each derived from KURZ_SECRET for
// one purpose, so a value made for one use is worthless for another.
type keys struct {
	csrf  []byte
	flash []byte
}

func deriveKeys(secret string) keys {
	derive := func(purpose string) []byte {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte("kurz dashboard " + purpose))
		return m.Sum(nil)
	}
	return keys{csrf: derive("csrf"), flash: derive("flash")}
}

// token is the CSRF token of this request's forms.
func (s *Server) token(c *call) string {
	m := hmac.New(sha256.New, s.keys.csrf)
	if c.sid != "" {
		m.Write([]byte("session\x00" + c.sid))
	} else {
		m.Write([]byte("visitor\x00" + c.pre))
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// errCSRF refuses a state-changing request that failed a CSRF check.
var errCSRF = &pageError{status: http.StatusForbidden, title: "This form has expired",
	text: "The page you sent it from is out of date or was not opened from this site. Go back, reload the page and send it again."}

// crossOrigin is Go's cross-origin protection with no exceptions.
var crossOrigin = http.NewCrossOriginProtection()

// checkCSRF refuses r unless it comes from our own pages with the token
// of its session. A multipart body is refused unless upload (a route
// registered with uploadRoute) and a user is signed in; it is then read
// under the API's cap for large bodies, whose room release gives back
// once the response is written.
func (s *Server) checkCSRF(w http.ResponseWriter, r *http.Request, c *call, upload bool) (release func(), err error) {
	release = func() {}
	if err := crossOrigin.Check(r); err != nil {
		return release, errCSRF
	}
	multipart := strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data")
	limit := int64(maxFormBytes)
	if multipart {
		if !upload {
			return release, errBadForm
		}
		if c.user == nil {
			return release, errCSRF
		}
		limit = maxUploadBytes
		if release, err = s.api.BodyRoom(r); err != nil {
			return func() {}, err
		}
	}
	// A form body is read here for its token; handlers read the parsed
	// form afterwards.
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	got := r.Header.Get(csrfHeader)
	if got == "" {
		parse := r.ParseForm
		if multipart {
			// The whole body fits in memory (limit): no temporary files.
			parse = func() error { return r.ParseMultipartForm(limit) }
		}
		if err := parse(); err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return release, errFormTooLarge
			}
			return release, errBadForm
		}
		got = r.PostForm.Get(csrfField)
	}
	if (c.sid == "" && c.pre == "") || !hmac.Equal([]byte(got), []byte(s.token(c))) {
		return release, errCSRF
	}
	return release, nil
}

// maxFormBytes bounds a form body: the largest form is a link's, far
// below this.
const maxFormBytes = 64 << 10

// maxUploadBytes bounds a multipart body (the QR forms with a logo file,
// the only routes that take one):
// twice the largest logo, so that a file a little too large is refused
// next to its field (qrcode.MaxLogoBytes) rather than as a whole form.
const maxUploadBytes = 2*qrcode.MaxLogoBytes + maxFormBytes

var (
	errFormTooLarge = &pageError{status: http.StatusRequestEntityTooLarge, title: "Form too large",
		text: "The form you sent is larger than this server accepts."}
	errBadForm = &pageError{status: http.StatusBadRequest, title: "Unreadable form",
		text: "The form you sent could not be read. Go back, reload the page and send it again."}
)

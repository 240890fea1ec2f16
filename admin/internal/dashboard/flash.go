package dashboard

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

// A flash is the message a form's redirect leaves for the next page
// ("Link created", the framing warnings): a short-lived cookie, signed so
// that nobody else can put words on our pages, read and cleared by the
// next page rendered.

const (
	flashCookie = "kurz_flash"
	flashMaxAge = 60 // seconds: only the redirect's page should show it
)

// flash kinds, one CSS class each.
const (
	flashOK   = "ok"
	flashWarn = "warn"
)

type flash struct {
	Kind  string   `json:"k"`
	Text  string   `json:"t"`
	Short string   `json:"s,omitempty"` // a short URL to show with a copy button
	Notes []string `json:"n,omitempty"` // more lines (warnings)
}

// setFlash leaves f for the next page.
func (s *Server) setFlash(w http.ResponseWriter, c *call, f flash) {
	b, err := json.Marshal(f)
	if err != nil {
		return
	}
	value := base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(s.flashMAC(b))
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: value, Path: "/", HttpOnly: true,
		Secure: c.https, SameSite: http.SameSiteLaxMode, MaxAge: flashMaxAge})
}

// takeFlash returns the flash the request brought, if it is ours, and
// clears it.
func (s *Server) takeFlash(w http.ResponseWriter, r *http.Request, c *call) *flash {
	ck, err := r.Cookie(flashCookie)
	if err != nil || ck.Value == "" {
		return nil
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: "/", HttpOnly: true,
		Secure: c.https, SameSite: http.SameSiteLaxMode, MaxAge: -1})
	data, mac, ok := strings.Cut(ck.Value, ".")
	if !ok {
		return nil
	}
	b, err1 := base64.RawURLEncoding.DecodeString(data)
	m, err2 := base64.RawURLEncoding.DecodeString(mac)
	if err1 != nil || err2 != nil || !hmac.Equal(m, s.flashMAC(b)) {
		return nil
	}
	var f flash
	if json.Unmarshal(b, &f) != nil {
		return nil
	}
	return &f
}

func (s *Server) flashMAC(b []byte) []byte {
	m := hmac.New(sha256.New, s.keys.flash)
	m.Write(b)
	return m.Sum(nil)
}

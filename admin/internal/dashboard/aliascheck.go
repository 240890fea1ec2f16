package dashboard

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"kurz/admin/internal/api"
)

// GET /links/alias?custom=…&domain=… answers whether the signed-in user
// could take the alias, for the link form's "as you type" note: JSON
// {"status":"available|taken|invalid","message":…}, through
// api.Server.CheckAlias (the API's alias rules, rate-limited per user like
// the API). A GET that changes nothing: no CSRF token needed; it reads
// the session, so it answers only the signed-in user.
func (s *Server) aliasCheck(w http.ResponseWriter, r *http.Request, c *call) error {
	if c.user == nil {
		return writeJSON(w, http.StatusUnauthorized, api.AliasCheck{Status: "signed-out", Message: "sign in again"})
	}
	q := r.URL.Query()
	res, err := s.api.CheckAlias(r.Context(), c.user, q.Get("domain"), q.Get("custom"))
	var ae *api.Error
	if errors.As(err, &ae) && ae.Status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", strconv.Itoa(60))
		return writeJSON(w, ae.Status, api.AliasCheck{Status: "limited", Message: ae.Message})
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, err = w.Write(b)
	return err
}

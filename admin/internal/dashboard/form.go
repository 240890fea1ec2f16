package dashboard

import (
	"errors"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"kurz/admin/internal/api"
)

// form is a page's form as sent: its values, shown again whatever went
// wrong, and its errors, each next to its field (Errors) or above the
// form when no field is to blame (Alert).
type form struct {
	Values map[string]string
	Errors map[string]string
	Alert  string
	// Status is the HTTP status of the page showing a refused form.
	Status int
}

func newForm() *form {
	return &form{Values: map[string]string{}, Errors: map[string]string{}, Status: http.StatusOK}
}

// readForm copies the named fields of r's posted form (route has parsed
// it, bounded, for its CSRF check).
func readForm(r *http.Request, names ...string) *form {
	f := newForm()
	for _, n := range names {
		f.Values[n] = r.PostFormValue(n)
	}
	return f
}

// Val is a field's value; Err its error ("" = none).
func (f *form) Val(name string) string { return f.Values[name] }
func (f *form) Err(name string) string { return f.Errors[name] }

// Failed reports whether the form holds any error.
func (f *form) Failed() bool { return len(f.Errors) > 0 || f.Alert != "" }

// fail records a refusal of field with the page status it takes.
func (f *form) fail(field, msg string, status int) {
	if _, seen := f.Errors[field]; !seen {
		f.Errors[field] = sentence(msg)
	}
	f.Status = status
}

// refuse records a refusal of the API on the form: on the field its
// message names ("custom: alias already taken"), translated to this
// form's name for it by fields, or as the Alert when no field of the form
// is named. It reports false, leaving the form alone, when err is not a
// refusal (a fault or a missing record, which the caller returns).
func (f *form) refuse(err error, fields map[string]string) bool {
	var ae *api.Error
	if !errors.As(err, &ae) || !refusal(ae.Status) {
		return false
	}
	if name, msg, ok := strings.Cut(ae.Message, ": "); ok && isFieldName(name) {
		if field, ok := fields[name]; ok {
			f.fail(field, msg, ae.Status)
			return true
		}
	}
	if f.Alert == "" {
		f.Alert = sentence(ae.Message)
	}
	f.Status = ae.Status
	return true
}

// refuseAll records more refusals of the same request (the other fields'
// errors, api.LinkErrors), keeping what is already recorded.
func (f *form) refuseAll(errs []error, fields map[string]string) {
	status := f.Status
	for _, err := range errs {
		f.refuse(err, fields)
	}
	f.Status = status
}

// badRequest reports whether err is an API refusal of the input's form
// (400), after which the other fields are worth checking too.
func badRequest(err error) bool {
	var ae *api.Error
	return errors.As(err, &ae) && ae.Status == http.StatusBadRequest
}

// refusal reports whether an API status refuses the input (shown on the
// form, its values kept) rather than the request as a whole.
func refusal(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusForbidden, http.StatusConflict, http.StatusRequestEntityTooLarge,
		http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	}
	return false
}

// isFieldName reports whether s looks like the field part of an API
// message ("url", "geotarget[0].link"), not a sentence.
func isFieldName(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("_.[]", r)) {
			return false
		}
	}
	return true
}

// sentence starts msg with a capital letter, as a message on a page.
func sentence(msg string) string {
	r, n := utf8.DecodeRuneInString(msg)
	if n == 0 {
		return msg
	}
	return string(unicode.ToUpper(r)) + msg[n:]
}

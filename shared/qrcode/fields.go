package qrcode

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// jsonString decodes a required JSON string. A missing or null value and an
// empty string are both "required".
func jsonString(field string, raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", invalid(field, "required")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", invalid(field, "must be a string")
	}
	if s == "" {
		return "", invalid(field, "required")
	}
	return s, nil
}

// object is a decoded JSON object whose keys were checked against a fixed set.
type object map[string]json.RawMessage

// jsonObject decodes data as an object with only the allowed keys.
func jsonObject(raw json.RawMessage, allowed ...string) (object, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, invalid("data", "required")
	}
	if raw[0] != '{' {
		return nil, invalid("data", "must be an object with keys "+strings.Join(allowed, ", "))
	}
	var o object
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, invalid("data", "must be a valid JSON object")
	}
	for k := range o {
		if !slices.Contains(allowed, k) {
			return nil, invalid("data."+k, "unknown field (allowed: "+strings.Join(allowed, ", ")+")")
		}
	}
	return o, nil
}

// isJSONObject reports whether raw holds an object rather than a scalar, for
// types that accept both shapes.
func isJSONObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// str returns the string under key; a missing or null key gives "".
func (o object) str(key string) (string, error) {
	raw := bytes.TrimSpace(o[key])
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", invalid("data."+key, "must be a string")
	}
	return s, nil
}

// boolean returns the bool under key; a missing or null key gives false.
func (o object) boolean(key string) (bool, error) {
	raw := bytes.TrimSpace(o[key])
	if len(raw) == 0 || string(raw) == "null" {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return false, invalid("data."+key, "must be true or false")
	}
	return b, nil
}

// checkLine validates a single-line value: valid UTF-8, no control characters
// (so nothing can break out of a line-oriented format such as vCard), at most
// maxRunes characters.
func checkLine(field, s string, maxRunes int) error {
	return checkChars(field, s, maxRunes, false)
}

// checkMultiline is checkLine that also allows tabs and line breaks.
func checkMultiline(field, s string, maxRunes int) error {
	return checkChars(field, s, maxRunes, true)
}

func checkChars(field, s string, maxRunes int, multiline bool) error {
	if !utf8.ValidString(s) {
		return invalid(field, "must be valid UTF-8")
	}
	if n := utf8.RuneCountInString(s); n > maxRunes {
		return invalid(field, "at most "+strconv.Itoa(maxRunes)+" characters")
	}
	for _, r := range s {
		if multiline && (r == '\n' || r == '\r' || r == '\t') {
			continue
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return invalid(field, "must not contain control characters")
		}
	}
	return nil
}

const maxURLLen = 2000

// checkWebURL validates an absolute http/https URL with a host and returns it
// trimmed. Credentials are refused: "https://bank.example@evil.example" is a
// phishing pattern, never a legitimate QR target.
func checkWebURL(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", invalid(field, "required")
	}
	if len(s) > maxURLLen {
		return "", invalid(field, "at most "+strconv.Itoa(maxURLLen)+" characters")
	}
	if err := checkLine(field, s, maxURLLen); err != nil {
		return "", err
	}
	if strings.ContainsAny(s, " \\") {
		return "", invalid(field, "must not contain spaces or backslashes")
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", invalid(field, "must be an absolute http or https URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", invalid(field, "must be an absolute http or https URL")
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return "", invalid(field, "must be an absolute http or https URL with a host")
	}
	if u.User != nil {
		return "", invalid(field, "must not contain a user name or password")
	}
	return s, nil
}

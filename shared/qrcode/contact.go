package qrcode

import (
	"encoding/json"
	"net/mail"
	"strings"
)

const (
	maxEmailLen     = 254 // RFC 5321 path limit
	maxSubjectRunes = 200
	maxBodyRunes    = 1000
	maxMessageRunes = 1000
)

// buildEmail accepts "addr" or {email, subject, body} and produces a RFC 6068
// mailto: URI.
func buildEmail(data json.RawMessage) (Content, error) {
	var addr, subject, body string
	addrField := "data"
	if isJSONObject(data) {
		o, err := jsonObject(data, "email", "subject", "body")
		if err != nil {
			return Content{}, err
		}
		addrField = "data.email"
		if addr, err = o.str("email"); err != nil {
			return Content{}, err
		}
		if subject, err = o.str("subject"); err != nil {
			return Content{}, err
		}
		if body, err = o.str("body"); err != nil {
			return Content{}, err
		}
	} else {
		s, err := jsonString("data", data)
		if err != nil {
			return Content{}, err
		}
		addr = s
	}
	addr, err := checkEmail(addrField, addr)
	if err != nil {
		return Content{}, err
	}
	if err := checkLine("data.subject", subject, maxSubjectRunes); err != nil {
		return Content{}, err
	}
	if err := checkMultiline("data.body", body, maxBodyRunes); err != nil {
		return Content{}, err
	}
	return Content{Text: mailtoURI(addr, subject, body)}, nil
}

// checkEmail accepts a bare addr-spec (no display name, no quoting) and
// returns it trimmed.
func checkEmail(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", invalid(field, "required")
	}
	if len(s) > maxEmailLen {
		return "", invalid(field, "at most 254 characters")
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s || !strings.Contains(s, "@") {
		return "", invalid(field, "must be an email address like name@example.com")
	}
	return s, nil
}

// mailtoURI percent-encodes per RFC 6068: every byte outside the unreserved
// set is escaped (spaces as %20, never '+'), and body line breaks become
// %0D%0A as the RFC asks.
func mailtoURI(addr, subject, body string) string {
	var b strings.Builder
	b.WriteString("mailto:")
	b.WriteString(percentEncode(addr, "@+"))
	sep := byte('?')
	if subject != "" {
		b.WriteByte(sep)
		b.WriteString("subject=")
		b.WriteString(percentEncode(subject, ""))
		sep = '&'
	}
	if body != "" {
		b.WriteByte(sep)
		b.WriteString("body=")
		b.WriteString(percentEncode(crlf(body), ""))
	}
	return b.String()
}

// crlf normalises any mix of line endings to CRLF.
func crlf(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.ReplaceAll(s, "\n", "\r\n")
}

// percentEncode escapes every byte except RFC 3986 unreserved characters and
// those in keep.
func percentEncode(s, keep string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUnreserved(c) || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// buildPhone accepts "number" or {phone} and produces a tel: URI.
func buildPhone(data json.RawMessage) (Content, error) {
	var raw string
	field := "data"
	if isJSONObject(data) {
		o, err := jsonObject(data, "phone")
		if err != nil {
			return Content{}, err
		}
		field = "data.phone"
		if raw, err = o.str("phone"); err != nil {
			return Content{}, err
		}
	} else {
		s, err := jsonString("data", data)
		if err != nil {
			return Content{}, err
		}
		raw = s
	}
	num, err := normalizePhone(field, raw)
	if err != nil {
		return Content{}, err
	}
	return Content{Text: "tel:" + num}, nil
}

// normalizePhone drops the separators people type and requires what is left
// to be an optional leading '+' and 3–20 digits, so the result is safe in
// tel:, SMSTO: and vCard alike.
func normalizePhone(field, s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", invalid(field, "required")
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '-' || c == '.' || c == '(' || c == ')' || c == '/':
		case c == '+' && b.Len() == 0:
			b.WriteByte(c)
		case '0' <= c && c <= '9':
			b.WriteByte(c)
		default:
			return "", invalid(field, "must be a phone number: digits with an optional leading +")
		}
	}
	n := b.Len()
	if strings.HasPrefix(b.String(), "+") {
		n--
	}
	if n < 3 || n > 20 {
		return "", invalid(field, "must have 3 to 20 digits")
	}
	return b.String(), nil
}

// buildSMS accepts {phone, message} and produces the de-facto
// "SMSTO:number:message" form that phone scanners understand.
func buildSMS(data json.RawMessage) (Content, error) {
	o, err := jsonObject(data, "phone", "message")
	if err != nil {
		return Content{}, err
	}
	phone, err := o.str("phone")
	if err != nil {
		return Content{}, err
	}
	num, err := normalizePhone("data.phone", phone)
	if err != nil {
		return Content{}, err
	}
	msg, err := o.str("message")
	if err != nil {
		return Content{}, err
	}
	if err := checkMultiline("data.message", msg, maxMessageRunes); err != nil {
		return Content{}, err
	}
	return Content{Text: "SMSTO:" + num + ":" + msg}, nil
}

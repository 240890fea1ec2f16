package qrcode

import (
	"encoding/json"
	"strings"
)

const (
	maxVCardLineRunes = 200
	maxAddressRunes   = 500
	maxNoteRunes      = 1000
)

// vcardInput is the validated vcard data object.
type vcardInput struct {
	name, org, phone, email, url, address, title, note string
}

// buildVCard accepts {name, org, phone, email, url, address, title, note}
// (name required) and produces a vCard 3.0 with CRLF line ends.
//
// Lines are not folded: folding is optional (RFC 6350 "SHOULD"), and several
// phone scanners mishandle folded lines, while none mind long ones.
func buildVCard(data json.RawMessage) (Content, error) {
	in, err := parseVCard(data)
	if err != nil {
		return Content{}, err
	}
	var b strings.Builder
	line := func(prop, value string) {
		b.WriteString(prop)
		b.WriteByte(':')
		b.WriteString(value)
		b.WriteString("\r\n")
	}
	line("BEGIN", "VCARD")
	line("VERSION", "3.0")
	family, given := splitName(in.name)
	line("N", vcardEscape(family)+";"+vcardEscape(given)+";;;")
	line("FN", vcardEscape(in.name))
	opt := func(prop, value string) {
		if value != "" {
			line(prop, value)
		}
	}
	opt("ORG", vcardEscape(in.org))
	opt("TITLE", vcardEscape(in.title))
	opt("TEL", in.phone)
	opt("EMAIL;TYPE=INTERNET", vcardEscape(in.email))
	// URL is a URI value, not text: it is not escaped (it was validated as a
	// single-line http/https URL).
	opt("URL", in.url)
	if in.address != "" {
		// The free-form address goes into the street component of ADR.
		line("ADR", ";;"+vcardEscape(in.address)+";;;;")
	}
	opt("NOTE", vcardEscape(in.note))
	line("END", "VCARD")
	return Content{Text: b.String()}, nil
}

func parseVCard(data json.RawMessage) (vcardInput, error) {
	o, err := jsonObject(data, "name", "org", "phone", "email", "url", "address", "title", "note")
	if err != nil {
		return vcardInput{}, err
	}
	var in vcardInput
	for _, f := range []struct {
		key       string
		dst       *string
		max       int
		multiline bool
	}{
		{"name", &in.name, maxVCardLineRunes, false},
		{"org", &in.org, maxVCardLineRunes, false},
		{"title", &in.title, maxVCardLineRunes, false},
		{"address", &in.address, maxAddressRunes, true},
		{"note", &in.note, maxNoteRunes, true},
		{"phone", &in.phone, maxVCardLineRunes, false},
		{"email", &in.email, maxEmailLen, false},
		{"url", &in.url, maxURLLen, false},
	} {
		s, err := o.str(f.key)
		if err != nil {
			return vcardInput{}, err
		}
		s = strings.TrimSpace(s)
		if err := checkChars("data."+f.key, s, f.max, f.multiline); err != nil {
			return vcardInput{}, err
		}
		*f.dst = s
	}
	if in.name == "" {
		return vcardInput{}, invalid("data.name", "required")
	}
	if in.phone != "" {
		if in.phone, err = normalizePhone("data.phone", in.phone); err != nil {
			return vcardInput{}, err
		}
	}
	if in.email != "" {
		if in.email, err = checkEmail("data.email", in.email); err != nil {
			return vcardInput{}, err
		}
	}
	if in.url != "" {
		if in.url, err = checkWebURL("data.url", in.url); err != nil {
			return vcardInput{}, err
		}
	}
	return in, nil
}

// splitName guesses the structured N value from one display name: the last
// word is the family name, the rest the given names. FN always carries the
// name exactly as typed, and readers show FN.
func splitName(name string) (family, given string) {
	words := strings.Fields(name)
	if len(words) < 2 {
		return name, ""
	}
	return words[len(words)-1], strings.Join(words[:len(words)-1], " ")
}

// vcardEscape escapes a text value per RFC 6350 3.4: backslash, comma,
// semicolon, and any line break as \n.
func vcardEscape(s string) string {
	if !strings.ContainsAny(s, "\\,;\r\n") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', ',', ';':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString(`\n`)
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

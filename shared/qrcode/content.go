package qrcode

import (
	"encoding/json"
	"strings"
)

// The QR types of spec 4.8.
const (
	TypeText  = "text"
	TypeVCard = "vcard"
	TypeLink  = "link"
	TypeEmail = "email"
	TypePhone = "phone"
	TypeSMS   = "sms"
	TypeWiFi  = "wifi"
)

// Content is what a validated QR request encodes.
type Content struct {
	// Text is the exact string to encode. It is empty for TypeLink: a link QR
	// encodes the caller's own tracking URL ({base}/q/{code}) so scans are
	// counted, and only the caller knows the code.
	Text string
	// TargetURL is set for TypeLink only: the absolute http/https URL the
	// tracking redirect sends scanners to.
	TargetURL string
}

// BuildContent validates data for the QR type typ and returns what to encode.
//
// Accepted data shapes (JSON):
//   - text:  string, 1–2000 characters
//   - link:  string, absolute http/https URL with a host (no credentials)
//   - email: string address, or object {email, subject, body}
//   - phone: string number, or object {phone}
//   - sms:   object {phone, message}
//   - wifi:  object {ssid, password, encryption: WPA|WEP|nopass, hidden}
//   - vcard: object {name, org, phone, email, url, address, title, note}
//
// Unknown object keys are rejected so typos surface as 400s. Every error is a
// *ValidationError naming the field ("type", "data" or "data.<key>"). The
// returned Text is also checked to fit a QR code without a logo; call CheckFit
// when a logo is added.
func BuildContent(typ string, data json.RawMessage) (Content, error) {
	build, ok := builders[strings.ToLower(strings.TrimSpace(typ))]
	if !ok {
		return Content{}, invalid("type", "must be one of text, vcard, link, email, phone, sms, wifi")
	}
	c, err := build(data)
	if err != nil {
		return Content{}, err
	}
	if c.Text != "" {
		if err := CheckFit(c.Text, false); err != nil {
			return Content{}, err
		}
	}
	return c, nil
}

// builders maps each type to its validator; read-only after init.
var builders = map[string]func(json.RawMessage) (Content, error){
	TypeText:  buildText,
	TypeLink:  buildLink,
	TypeEmail: buildEmail,
	TypePhone: buildPhone,
	TypeSMS:   buildSMS,
	TypeWiFi:  buildWiFi,
	TypeVCard: buildVCard,
}

const maxTextRunes = 2000

func buildText(data json.RawMessage) (Content, error) {
	s, err := jsonString("data", data)
	if err != nil {
		return Content{}, err
	}
	if strings.TrimSpace(s) == "" {
		return Content{}, invalid("data", "required")
	}
	if err := checkMultiline("data", s, maxTextRunes); err != nil {
		return Content{}, err
	}
	return Content{Text: s}, nil
}

func buildLink(data json.RawMessage) (Content, error) {
	s, err := jsonString("data", data)
	if err != nil {
		return Content{}, err
	}
	u, err := checkWebURL("data", s)
	if err != nil {
		return Content{}, err
	}
	return Content{TargetURL: u}, nil
}

package qrcode

import (
	"encoding/json"
	"strings"
)

// Wi-Fi encryption values of the ZXing "WIFI:" format.
const (
	WiFiWPA    = "WPA"
	WiFiWEP    = "WEP"
	WiFiNoPass = "nopass"
)

// buildWiFi accepts {ssid, password, encryption, hidden} and produces
// "WIFI:T:<enc>;S:<ssid>;P:<password>;H:true;;". encryption is matched
// case-insensitively and defaults to WPA when a password is given, else nopass.
func buildWiFi(data json.RawMessage) (Content, error) {
	o, err := jsonObject(data, "ssid", "password", "encryption", "hidden")
	if err != nil {
		return Content{}, err
	}
	ssid, err := o.str("ssid")
	if err != nil {
		return Content{}, err
	}
	if err := checkSSID(ssid); err != nil {
		return Content{}, err
	}
	pass, err := o.str("password")
	if err != nil {
		return Content{}, err
	}
	enc, err := o.str("encryption")
	if err != nil {
		return Content{}, err
	}
	if enc, err = wifiEncryption(enc, pass); err != nil {
		return Content{}, err
	}
	if err := checkWiFiPassword(enc, pass); err != nil {
		return Content{}, err
	}
	hidden, err := o.boolean("hidden")
	if err != nil {
		return Content{}, err
	}

	var b strings.Builder
	b.WriteString("WIFI:T:")
	b.WriteString(enc)
	b.WriteString(";S:")
	b.WriteString(wifiEscape(ssid))
	if enc != WiFiNoPass {
		b.WriteString(";P:")
		b.WriteString(wifiEscape(pass))
	}
	if hidden {
		b.WriteString(";H:true")
	}
	b.WriteString(";;")
	return Content{Text: b.String()}, nil
}

func checkSSID(ssid string) error {
	if ssid == "" {
		return invalid("data.ssid", "required")
	}
	if err := checkLine("data.ssid", ssid, 32); err != nil {
		return err
	}
	// 802.11 limits the SSID to 32 octets, not characters.
	if len(ssid) > 32 {
		return invalid("data.ssid", "at most 32 bytes")
	}
	return nil
}

func wifiEncryption(enc, pass string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "":
		if pass == "" {
			return WiFiNoPass, nil
		}
		return WiFiWPA, nil
	case "wpa":
		return WiFiWPA, nil
	case "wep":
		return WiFiWEP, nil
	case "nopass":
		return WiFiNoPass, nil
	}
	return "", invalid("data.encryption", "must be WPA, WEP or nopass")
}

// checkWiFiPassword applies the key formats the standards allow, so a code
// never carries a password no device could use.
func checkWiFiPassword(enc, pass string) error {
	const field = "data.password"
	switch enc {
	case WiFiNoPass:
		if pass != "" {
			return invalid(field, "must be empty when encryption is nopass")
		}
	case WiFiWPA:
		if pass == "" {
			return invalid(field, "required for WPA")
		}
		if len(pass) == 64 && isHex(pass) {
			return nil
		}
		if !isPrintableASCII(pass) || len(pass) < 8 || len(pass) > 63 {
			return invalid(field, "must be 8 to 63 printable ASCII characters or 64 hex digits for WPA")
		}
	case WiFiWEP:
		if pass == "" {
			return invalid(field, "required for WEP")
		}
		n := len(pass)
		if (n == 10 || n == 26) && isHex(pass) {
			return nil
		}
		if !isPrintableASCII(pass) || (n != 5 && n != 13) {
			return invalid(field, "must be 5 or 13 ASCII characters or 10 or 26 hex digits for WEP")
		}
	}
	return nil
}

// wifiEscape backslash-escapes the characters the WIFI: format reserves.
func wifiEscape(s string) string {
	if !strings.ContainsAny(s, `\;,:"`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', ';', ',', ':', '"':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

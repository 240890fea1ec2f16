package qrcode

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestBuildContent(t *testing.T) {
	tests := []struct {
		name, typ, data string
		want            Content
	}{
		{"text", "text", `"Hello, World!"`, Content{Text: "Hello, World!"}},
		{"text multiline unicode", "text", `"Grüße\naus Köln 😀"`, Content{Text: "Grüße\naus Köln 😀"}},
		{"type case and spaces", " TEXT ", `"x"`, Content{Text: "x"}},
		{"link", "link", `" https://example.com/a?b=c#d "`, Content{TargetURL: "https://example.com/a?b=c#d"}},
		{"link http upper scheme", "link", `"HTTP://Example.com"`, Content{TargetURL: "HTTP://Example.com"}},
		{"email string", "email", `"jane@example.com"`, Content{Text: "mailto:jane@example.com"}},
		{"email object", "email", `{"email":"jane.doe+qr@example.com","subject":"Hello World & more?","body":"Line 1\nLine 2 100%"}`,
			Content{Text: "mailto:jane.doe+qr@example.com?subject=Hello%20World%20%26%20more%3F&body=Line%201%0D%0ALine%202%20100%25"}},
		{"email body only", "email", `{"email":"a@b.example","body":"ä"}`, Content{Text: "mailto:a@b.example?body=%C3%A4"}},
		{"phone string", "phone", `"+49 (30) 123-456.78"`, Content{Text: "tel:+493012345678"}},
		{"phone object", "phone", `{"phone":"030/1234"}`, Content{Text: "tel:0301234"}},
		{"sms", "sms", `{"phone":"+1 555 0100","message":"Hi: see you at 5;ok"}`, Content{Text: "SMSTO:+15550100:Hi: see you at 5;ok"}},
		{"sms no message", "sms", `{"phone":"112"}`, Content{Text: "SMSTO:112:"}},
		{"wifi wpa hidden", "wifi", `{"ssid":"Café; \"Guest\"","password":"p\\a:ss,w;rd","encryption":"wpa","hidden":true}`,
			Content{Text: `WIFI:T:WPA;S:Café\; \"Guest\";P:p\\a\:ss\,w\;rd;H:true;;`}},
		{"wifi default WPA", "wifi", `{"ssid":"home","password":"12345678"}`, Content{Text: "WIFI:T:WPA;S:home;P:12345678;;"}},
		{"wifi open", "wifi", `{"ssid":"Open Net"}`, Content{Text: "WIFI:T:nopass;S:Open Net;;"}},
		{"wifi open explicit", "wifi", `{"ssid":"x","encryption":"NOPASS","hidden":false}`, Content{Text: "WIFI:T:nopass;S:x;;"}},
		{"wifi wep hex", "wifi", `{"ssid":"old","password":"0123456789","encryption":"WEP"}`, Content{Text: "WIFI:T:WEP;S:old;P:0123456789;;"}},
		{"vcard minimal", "vcard", `{"name":"Jane"}`,
			Content{Text: "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Jane;;;;\r\nFN:Jane\r\nEND:VCARD\r\n"}},
		{"vcard full", "vcard", `{"name":"Jane Q. Doe","org":"Acme, Inc; Ltd","phone":"+49 30 1234","email":"jane@acme.example",
			"url":"https://acme.example/jane","address":"Main St 1\nBerlin, DE","title":"CEO\\CTO","note":"line1\r\nline2"}`,
			Content{Text: "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;Jane Q.;;;\r\nFN:Jane Q. Doe\r\nORG:Acme\\, Inc\\; Ltd\r\n" +
				"TITLE:CEO\\\\CTO\r\nTEL:+49301234\r\nEMAIL;TYPE=INTERNET:jane@acme.example\r\nURL:https://acme.example/jane\r\n" +
				"ADR:;;Main St 1\\nBerlin\\, DE;;;;\r\nNOTE:line1\\nline2\r\nEND:VCARD\r\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := BuildContent(tt.typ, json.RawMessage(tt.data))
			if err != nil {
				t.Fatalf("BuildContent(%q, %s): %v", tt.typ, tt.data, err)
			}
			if got != tt.want {
				t.Errorf("BuildContent(%q, %s)\n got %q\nwant %q", tt.typ, tt.data, got, tt.want)
			}
		})
	}
}

func TestBuildContentErrors(t *testing.T) {
	long := func(n int) string { return `"` + strings.Repeat("a", n) + `"` }
	tests := []struct {
		name, typ, data string
		field, rule     string // rule: a substring of the expected rule
	}{
		{"unknown type", "fax", `"x"`, "type", "must be one of"},
		{"empty type", "", `"x"`, "type", "must be one of"},
		{"text missing", "text", ``, "data", "required"},
		{"text null", "text", `null`, "data", "required"},
		{"text empty", "text", `""`, "data", "required"},
		{"text blank", "text", `"  \n "`, "data", "required"},
		{"text number", "text", `42`, "data", "must be a string"},
		{"text object", "text", `{"a":1}`, "data", "must be a string"},
		{"text too long", "text", long(2001), "data", "at most 2000 characters"},
		{"text control char", "text", `"a\u0000b"`, "data", "control characters"},
		{"text too many bytes", "text", `"` + strings.Repeat("€", 800) + `"`, "data", "too long for a QR code"},
		{"link javascript", "link", `"javascript:alert(1)"`, "data", "http or https"},
		{"link data", "link", `"data:text/html,<b>x</b>"`, "data", "http or https"},
		{"link file", "link", `"file:///etc/passwd"`, "data", "http or https"},
		{"link relative", "link", `"/path"`, "data", "http or https"},
		{"link no host", "link", `"https:///x"`, "data", "with a host"},
		{"link opaque", "link", `"http:example.com"`, "data", "with a host"},
		{"link credentials", "link", `"https://bank.example@evil.example/"`, "data", "user name or password"},
		{"link newline", "link", `"https://a.example/\nb"`, "data", "control characters"},
		{"link space", "link", `"https://a.example/a b"`, "data", "spaces"},
		{"link too long", "link", `"https://a.example/` + strings.Repeat("a", 2000) + `"`, "data", "at most 2000"},
		{"email invalid", "email", `"not-an-email"`, "data", "email address"},
		{"email display name", "email", `"Jane <jane@example.com>"`, "data", "email address"},
		{"email object missing", "email", `{"subject":"x"}`, "data.email", "required"},
		{"email object bad", "email", `{"email":"x@"}`, "data.email", "email address"},
		{"email unknown key", "email", `{"email":"a@b.example","cc":"c@d.example"}`, "data.cc", "unknown field"},
		{"email subject newline", "email", `{"email":"a@b.example","subject":"a\r\nBcc: x@y"}`, "data.subject", "control characters"},
		{"email subject type", "email", `{"email":"a@b.example","subject":1}`, "data.subject", "must be a string"},
		{"phone letters", "phone", `"+49 call me"`, "data", "phone number"},
		{"phone inner plus", "phone", `"49+123"`, "data", "phone number"},
		{"phone too short", "phone", `"12"`, "data", "3 to 20 digits"},
		{"phone too long", "phone", `"123456789012345678901"`, "data", "3 to 20 digits"},
		{"phone object missing", "phone", `{}`, "data.phone", "required"},
		{"sms string", "sms", `"+49123"`, "data", "must be an object"},
		{"sms no phone", "sms", `{"message":"hi"}`, "data.phone", "required"},
		{"sms bad phone", "sms", `{"phone":"abc","message":"hi"}`, "data.phone", "phone number"},
		{"sms message too long", "sms", `{"phone":"123","message":` + long(1001) + `}`, "data.message", "at most 1000"},
		{"wifi no ssid", "wifi", `{"password":"12345678"}`, "data.ssid", "required"},
		{"wifi ssid too long", "wifi", `{"ssid":"` + strings.Repeat("ä", 17) + `"}`, "data.ssid", "at most 32 bytes"},
		{"wifi ssid newline", "wifi", `{"ssid":"a\nb"}`, "data.ssid", "control characters"},
		{"wifi bad encryption", "wifi", `{"ssid":"x","password":"12345678","encryption":"WPA4"}`, "data.encryption", "WPA, WEP or nopass"},
		{"wifi wpa short", "wifi", `{"ssid":"x","password":"1234567","encryption":"WPA"}`, "data.password", "8 to 63"},
		{"wifi wpa missing", "wifi", `{"ssid":"x","encryption":"WPA"}`, "data.password", "required for WPA"},
		{"wifi wep bad", "wifi", `{"ssid":"x","password":"123456","encryption":"WEP"}`, "data.password", "5 or 13"},
		{"wifi nopass with password", "wifi", `{"ssid":"x","password":"12345678","encryption":"nopass"}`, "data.password", "must be empty"},
		{"wifi hidden type", "wifi", `{"ssid":"x","hidden":"yes"}`, "data.hidden", "true or false"},
		{"wifi unknown", "wifi", `{"ssid":"x","pass":"y"}`, "data.pass", "unknown field"},
		{"wifi array", "wifi", `["x"]`, "data", "must be an object"},
		{"wifi broken json", "wifi", `{"ssid":`, "data", "valid JSON"},
		{"vcard no name", "vcard", `{"org":"Acme"}`, "data.name", "required"},
		{"vcard blank name", "vcard", `{"name":"  "}`, "data.name", "required"},
		{"vcard name injection", "vcard", `{"name":"a\r\nEND:VCARD"}`, "data.name", "control characters"},
		{"vcard bad email", "vcard", `{"name":"a","email":"nope"}`, "data.email", "email address"},
		{"vcard bad url", "vcard", `{"name":"a","url":"javascript:x"}`, "data.url", "http or https"},
		{"vcard bad phone", "vcard", `{"name":"a","phone":"x"}`, "data.phone", "phone number"},
		{"vcard long note", "vcard", `{"name":"a","note":` + long(1001) + `}`, "data.note", "at most 1000"},
		{"vcard string", "vcard", `"Jane"`, "data", "must be an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := BuildContent(tt.typ, json.RawMessage(tt.data))
			assertValidation(t, err, tt.field, tt.rule)
		})
	}
}

// assertValidation checks err is a *ValidationError for field whose rule
// contains rule.
func assertValidation(t *testing.T, err error, field, rule string) {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v (%T), want *ValidationError", err, err)
	}
	if ve.Field != field || !strings.Contains(ve.Rule, rule) {
		t.Errorf("error = %q, want field %q with rule containing %q", ve.Error(), field, rule)
	}
	if want := ve.Field + ": " + ve.Rule; err.Error() != want && !strings.HasSuffix(err.Error(), want) {
		t.Errorf("Error() = %q, want it to end in %q", err.Error(), want)
	}
}

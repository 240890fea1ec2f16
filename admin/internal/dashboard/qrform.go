package dashboard

import (
	"encoding/json"
	"net/http"
	"strings"

	"kurz/admin/internal/api"
)

// The QR code form: one fieldset of fields per type, posted flat
// (wifi_ssid, vcard_name, …) and turned into the API's data shapes
// (qrcode.BuildContent documents them), so api.Server.AddQR checks it as
// it checks POST /api/qr/add. API errors name "data" or "data.<key>";
// qrFieldMap puts them on the field of the chosen type.

// qrTypeSpec is one QR type: its API name, label and fields (keys of its
// data object, or "data" when the data is a plain string).
type qrTypeSpec struct {
	Type, Label string
	Fields      []qrFieldSpec
}

type qrFieldSpec struct {
	Key, Label, Kind, Hint string // Kind: text, textarea, email, tel, url, password, select, check
}

var qrTypeSpecs = []qrTypeSpec{
	{"link", "Link", []qrFieldSpec{{"data", "Web address", "url", "Scans go through your tracking URL, so they are counted, then on to this address."}}},
	{"text", "Text", []qrFieldSpec{{"data", "Text", "textarea", ""}}},
	{"vcard", "Contact card", []qrFieldSpec{{"name", "Name", "text", ""}, {"org", "Organisation", "text", ""},
		{"title", "Job title", "text", ""}, {"phone", "Phone", "tel", ""}, {"email", "Email", "email", ""},
		{"url", "Website", "url", ""}, {"address", "Address", "text", ""}, {"note", "Note", "textarea", ""}}},
	{"email", "Email", []qrFieldSpec{{"email", "To", "email", ""}, {"subject", "Subject", "text", ""}, {"body", "Message", "textarea", ""}}},
	{"phone", "Phone call", []qrFieldSpec{{"phone", "Phone number", "tel", "With the country code, such as +49 30 1234567."}}},
	{"sms", "Text message", []qrFieldSpec{{"phone", "Phone number", "tel", ""}, {"message", "Message", "textarea", ""}}},
	{"wifi", "Wi-Fi", []qrFieldSpec{{"ssid", "Network name (SSID)", "text", ""}, {"encryption", "Security", "select", ""},
		{"password", "Password", "text", "Shown to whoever scans the code."}, {"hidden", "Hidden network", "check", ""}}},
}

// qrFormFields are every posted field of the QR form.
var qrFormFields = func() []string {
	names := []string{"type", "name", "foreground", "background", "logo", "do"}
	for _, t := range qrTypeSpecs {
		for _, f := range t.Fields {
			names = append(names, t.Type+"_"+f.Key)
		}
	}
	return names
}()

// qrFieldMap maps the API's field names to the form's for the chosen type.
func qrFieldMap(typ string) map[string]string {
	m := map[string]string{"type": "type", "name": "name", "foreground": "foreground", "background": "background", "logo": "logo"}
	for _, t := range qrTypeSpecs {
		if t.Type != typ {
			continue
		}
		m["data"] = typ + "_" + t.Fields[0].Key
		for _, f := range t.Fields {
			if f.Key != "data" {
				m["data."+f.Key] = typ + "_" + f.Key
			}
		}
	}
	return m
}

func newQRForm() *form {
	f := newForm()
	f.Values["type"], f.Values["foreground"], f.Values["background"] = "link", "#000000", "#ffffff"
	f.Values["wifi_encryption"] = "WPA"
	return f
}

// qrInput is the API payload of the form.
func qrInput(f *form) *api.QRInput {
	typ := f.Val("type")
	in := &api.QRInput{Type: &typ}
	for _, name := range []string{"name", "foreground", "background", "logo"} {
		if v := strings.TrimSpace(f.Val(name)); v != "" {
			*qrFieldPtr(in, name) = &v
		}
	}
	var data any
	for _, t := range qrTypeSpecs {
		if t.Type != typ {
			continue
		}
		if t.Fields[0].Key == "data" {
			data = f.Val(typ + "_data")
			break
		}
		obj := map[string]any{}
		for _, fs := range t.Fields {
			v := f.Val(typ + "_" + fs.Key)
			switch {
			case fs.Kind == "check":
				obj[fs.Key] = v != ""
			case v != "":
				obj[fs.Key] = v
			}
		}
		data = obj
	}
	if data != nil {
		raw, err := json.Marshal(data)
		if err != nil {
			f.fail("type", "cannot encode the fields", http.StatusBadRequest)
		}
		in.Data = raw
	}
	return in
}

func qrFieldPtr(in *api.QRInput, name string) **string {
	switch name {
	case "name":
		return &in.Name
	case "foreground":
		return &in.Foreground
	case "background":
		return &in.Background
	}
	return &in.Logo
}

// qrTypeView is a type's fieldset as the template shows it.
type qrTypeView struct {
	Type, Label string
	Checked     bool
	Fields      []fieldView
	Kinds       []string // parallel to Fields
}

func qrTypeViews(f *form) []qrTypeView {
	var out []qrTypeView
	for _, t := range qrTypeSpecs {
		v := qrTypeView{Type: t.Type, Label: t.Label, Checked: f.Val("type") == t.Type}
		for _, fs := range t.Fields {
			opts := []string{"type=" + fs.Kind, "max=2000"}
			if fs.Hint != "" {
				opts = append(opts, "hint="+fs.Hint)
			}
			v.Fields = append(v.Fields, fieldOf(f, t.Type+"_"+fs.Key, fs.Label, opts...))
			v.Kinds = append(v.Kinds, fs.Kind)
		}
		out = append(out, v)
	}
	return out
}

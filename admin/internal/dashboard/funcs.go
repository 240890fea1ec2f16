package dashboard

import (
	"html/template"
	"strconv"
	"strings"
	"time"
)

// templateFuncs are the helpers the templates call.
func templateFuncs(a *assets) template.FuncMap {
	return template.FuncMap{
		"asset":   a.url,
		"field":   fieldOf,
		"select":  selectOf,
		"when":    when,
		"number":  number,
		"counted": counted,
		"count":   func(n uint64) string { return number(int(n)) },
		"prefix":  strings.HasPrefix,
	}
}

// fieldView is one labelled form control (the "input" partial).
type fieldView struct {
	ID, Name, Label, Type, Value, Error, Hint string
	Auto, Placeholder, Max, Mode, Accept      string
	Required, Optional                        bool
}

// Described is the ids of the hint and error, for aria-describedby.
func (f fieldView) Described() string {
	var ids []string
	if f.Hint != "" {
		ids = append(ids, f.ID+"-hint")
	}
	if f.Error != "" {
		ids = append(ids, f.ID+"-error")
	}
	return strings.Join(ids, " ")
}

// fieldOf builds a fieldView of form field name. opts are "required",
// "optional" or key=value pairs: type, auto (autocomplete), hint,
// placeholder, max (maxlength), mode (inputmode), id (the element id, "f-"
// and the name by default: two forms of one page need their own).
func fieldOf(f *form, name, label string, opts ...string) fieldView {
	v := fieldView{ID: "f-" + name, Name: name, Label: label, Type: "text", Value: f.Val(name), Error: f.Err(name)}
	for _, o := range opts {
		key, val, _ := strings.Cut(o, "=")
		switch key {
		case "required":
			v.Required = true
		case "optional":
			v.Optional = true
		case "type":
			v.Type = val
		case "auto":
			v.Auto = val
		case "hint":
			v.Hint = val
		case "placeholder":
			v.Placeholder = val
		case "max":
			v.Max = val
		case "mode":
			v.Mode = val
		case "id":
			v.ID = val
		case "accept":
			v.Accept = val
		}
	}
	return v
}

// selectView is a labelled select (the "select" partial).
type selectView struct {
	fieldView
	Options []choice
}

// selectOf builds a selectView of form field name with its options; opts
// as for fieldOf.
func selectOf(f *form, name, label string, options []choice, opts ...string) selectView {
	return selectView{fieldView: fieldOf(f, name, label, opts...), Options: options}
}

// when renders a time for the tables: UTC, to the minute.
func when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04") + " UTC"
}

// number renders a count with thousands separators (12,345).
func number(n int) string {
	if n < 0 {
		return "-" + number(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// counted renders a number that may be unavailable (nil): "—", never a
// made-up 0.
func counted(n *uint64) string {
	if n == nil {
		return "—"
	}
	return number(int(*n))
}

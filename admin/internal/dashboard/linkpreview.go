package dashboard

import (
	"bytes"
	"errors"
	"net/http"
	"sort"
	"strings"
	"sync"

	"kurz/shared/link"
	"kurz/shared/target"
)

// The link form's preview: where a visitor from a country, on a device,
// with a browser language goes, computed by shared/target exactly as the
// edge computes it (target.Compile, Set.Match), from the form's current
// values, saved or not; and the card social networks show for the link.
// The form's "Preview" button shows it without JavaScript; the script
// asks POST /links/preview for the same fragment as the user types.

// visitorFacts are the preview's visitor, as the form posts them.
type visitorFacts struct {
	Country, Device, Lang string
}

// defaultVisitor is the preview's first visitor.
var defaultVisitor = visitorFacts{Country: "DE", Device: "iphone", Lang: "fr"}

func readVisitor(r *http.Request) visitorFacts {
	v := visitorFacts{Country: r.PostFormValue("pv_country"), Device: r.PostFormValue("pv_device"), Lang: r.PostFormValue("pv_lang")}
	if v.Country == "" && v.Device == "" && v.Lang == "" {
		return defaultVisitor
	}
	if len(v.Lang) > 200 {
		v.Lang = v.Lang[:200]
	}
	return v
}

// linkPreview is what the preview shows.
type linkPreview struct {
	Visitor string // "a visitor from Germany on an iPhone asking for fr"
	Dest    string // where they go; "" when the rules cannot be compiled
	By      string // which rule sent them ("the country rule for Germany")
	Problem string // why there is no answer
	Params  bool   // the link's URL parameters are added to Dest
	Card    socialCard
}

// socialCard is the link's preview on social networks.
type socialCard struct {
	Host, Title, Description, Image string
	// ImageHost is the image's host: the page does not load the image (the
	// dashboard's CSP loads nothing from other hosts, and a typed URL is
	// not fetched from the admin's network either).
	ImageHost string
}

// preview computes the preview of the form's values for v.
func (s *Server) preview(f *form, rows *linkRows, v visitorFacts) *linkPreview {
	p := &linkPreview{Visitor: visitorText(v), Params: len(rows.lists["param"]) > 0, Card: s.cardOf(f)}
	typed := target.Spec{IOSStore: f.Val("ios_store"), AndroidStore: f.Val("android_store")}
	for _, r := range rows.lists["geo"] {
		typed.Geo = append(typed.Geo, target.Rule{Key: r.Key, URL: r.URL})
	}
	for _, r := range rows.lists["device"] {
		typed.Device = append(typed.Device, target.Rule{Key: r.Key, URL: r.URL})
	}
	for _, r := range rows.lists["lang"] {
		typed.Lang = append(typed.Lang, target.Rule{Key: r.Key, URL: r.URL})
	}
	// The rules as typed must compile (saving checks the same); the edge
	// then serves them with the URL parameters set, dropping a rule whose
	// address they make invalid, and so does the preview.
	if _, err := target.Compile(typed); err != nil {
		var re *target.RuleError
		if errors.As(err, &re) {
			p.Problem = "Fix " + re.Path() + " first: " + re.Err.Error() + "."
		} else {
			p.Problem = "Fix the rules first: " + err.Error() + "."
		}
		return p
	}
	params := formParams(rows)
	spec := withParams(typed, params)
	set, err := target.Compile(spec)
	if err != nil {
		p.Problem = "Fix the rules first: " + err.Error() + "."
		return p
	}
	facts := target.Facts{AcceptLanguage: []byte(v.Lang)}
	if code, ok := target.CountryCode(v.Country); ok {
		facts.Country = [2]byte{code[0], code[1]}
	}
	if d, ok := target.ParseDevice(v.Device); ok {
		facts.Device = d
	}
	if url, ok := set.Match(&facts); ok {
		p.Dest, p.By = url, whichRule(spec, &facts)
		return p
	}
	p.Dest = strings.TrimSpace(f.Val("url"))
	if p.Dest == "" {
		p.Problem = "No rule matches this visitor, and the link has no destination URL yet."
		return p
	}
	p.By = "no rule matches: the destination URL"
	if len(params) == 0 {
		return p
	}
	if _, err := link.ValidURL(p.Dest); err != nil {
		p.Dest, p.Problem = "", "Fix the destination URL first: "+err.Error()+"."
		return p
	}
	u, err := link.WithParams(p.Dest, params)
	if err != nil {
		p.Dest, p.Problem = "", "With the URL parameters the destination is not a valid URL, so the link would answer “not found”: "+err.Error()+"."
		return p
	}
	p.Dest = u
	return p
}

// formParams are the form's URL parameters.
func formParams(rows *linkRows) []link.Param {
	var out []link.Param
	for _, r := range rows.lists["param"] {
		out = append(out, link.Param{Name: r.Key, Value: r.URL})
	}
	return out
}

// withParams is spec as the edge serves it (the catalog's rules and
// link.ParamURL): params set on every rule's and deep link's address, a rule
// whose address they make invalid left out.
func withParams(spec target.Spec, params []link.Param) target.Spec {
	if len(params) == 0 {
		return spec
	}
	rules := func(in []target.Rule) []target.Rule {
		var out []target.Rule
		for _, r := range in {
			if u := link.ParamURL(r.URL, params); u != "" {
				out = append(out, target.Rule{Key: r.Key, URL: u})
			}
		}
		return out
	}
	return target.Spec{Geo: rules(spec.Geo), Device: rules(spec.Device), Lang: rules(spec.Lang),
		IOSStore: link.ParamURL(spec.IOSStore, params), AndroidStore: link.ParamURL(spec.AndroidStore, params)}
}

// whichRule names the rule Match followed: the first of the precedence
// steps (deep links, geo, device, language) whose rules alone match, the
// same order Set.Match tries them in.
func whichRule(spec target.Spec, f *target.Facts) string {
	steps := []struct {
		name string
		spec target.Spec
	}{
		{"the app store deep link", target.Spec{IOSStore: spec.IOSStore, AndroidStore: spec.AndroidStore}},
		{"a country rule", target.Spec{Geo: spec.Geo}},
		{"a device rule", target.Spec{Device: spec.Device}},
		{"a language rule", target.Spec{Lang: spec.Lang}},
	}
	for _, st := range steps {
		if set, err := target.Compile(st.spec); err == nil {
			if _, ok := set.Match(f); ok {
				return st.name
			}
		}
	}
	return "a rule"
}

// visitorText is the visitor in words.
func visitorText(v visitorFacts) string {
	var b strings.Builder
	b.WriteString("A visitor")
	if code, ok := target.CountryCode(v.Country); ok {
		b.WriteString(" from " + countryLabel(code))
	} else {
		b.WriteString(" from an unknown country")
	}
	if d, ok := target.ParseDevice(v.Device); ok {
		b.WriteString(" on " + article(deviceLabel(d.String())) + deviceLabel(d.String()))
	}
	if lang := strings.TrimSpace(v.Lang); lang != "" {
		b.WriteString(" whose browser asks for " + lang)
	}
	return b.String()
}

func article(word string) string {
	if strings.ContainsRune("AEIOUaeiou", rune(word[0])) || strings.HasPrefix(word, "iP") {
		return "an "
	}
	return "a "
}

// countryLabel is a country's English name with capitals ("United States").
func countryLabel(code string) string {
	words := strings.Fields(target.CountryName(code))
	for i, w := range words {
		if w != "and" && w != "of" && w != "the" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}

// countryChoices are every country, by name, for the preview's visitor.
var countryChoices = sync.OnceValue(func() []choice {
	var cs []choice
	for a := byte('A'); a <= 'Z'; a++ {
		for b := byte('A'); b <= 'Z'; b++ {
			if target.IsCountry([2]byte{a, b}) {
				code := string([]byte{a, b})
				cs = append(cs, choice{code, countryLabel(code)})
			}
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Label < cs[j].Label })
	return cs
})

// cardOf is the social card of the form's values.
func (s *Server) cardOf(f *form) socialCard {
	c := socialCard{Host: s.cfg.BaseHost, Title: f.Val("metatitle"), Description: f.Val("metadescription"), Image: f.Val("metaimage")}
	if d := f.Val("domain"); d != "" {
		c.Host = strings.TrimPrefix(strings.TrimPrefix(d, "https://"), "http://")
	}
	if c.Image != "" {
		if v, err := link.ValidURL(c.Image); err == nil {
			c.ImageHost = link.HostName(link.HostOf(v))
		}
	}
	return c
}

// previewFragment answers the script's POST /links/preview: the preview
// part of the form, rendered by the form's own template.
func (s *Server) previewFragment(w http.ResponseWriter, r *http.Request, c *call) error {
	f, rows, _ := linkForm(r)
	rows.compact()
	d := linkFormData{Form: f, Visitor: readVisitor(r)}
	d.Preview = s.preview(f, rows, d.Visitor)
	var buf bytes.Buffer
	if err := s.pages.sets["linkform"].ExecuteTemplate(&buf, "preview", d); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, err := w.Write(buf.Bytes())
	return err
}

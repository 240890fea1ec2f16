package dashboard

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"kurz/admin/internal/api"
	"kurz/shared/link"
)

// The create/edit form of a link (its basic fields). Its field names are
// the API's, so a refusal of api.Server.AddLink / UpdateLink lands next to
// the field it names; the form only converts the values the browser's
// controls produce (a datetime-local, a checkbox) to the API's forms.

// linkFields are the form's fields, named as in the API.
var linkFields = []string{"url", "custom", "domain", "type", "password", "expiry",
	"metatitle", "metadescription", "description", "status"}

// linkFieldMap maps API field names to the form's (the same).
var linkFieldMap = func() map[string]string {
	m := map[string]string{}
	for _, f := range linkFields {
		m[f] = f
	}
	return m
}()

// expiryLayout is a datetime-local control's value, to the minute.
const expiryLayout = "2006-01-02T15:04"

// choice is an option of a select.
type choice struct{ Value, Label string }

// linkFormData is the create/edit page's.
type linkFormData struct {
	Form        *form
	Link        *link.Link // the link edited; nil when creating
	Domains     []choice
	Types       []choice
	HasPassword bool
}

// linkForm reads the posted link form; removePassword is the edit form's
// checkbox.
func linkForm(r *http.Request) (f *form, removePassword bool) {
	f = readForm(r, append(linkFields, "password_remove")...)
	return f, f.Val("password_remove") != ""
}

// formOfLink fills the edit form with the link's values.
func formOfLink(l *link.Link) *form {
	f := newForm()
	for k, v := range map[string]string{
		"url": l.LongURL, "custom": l.Alias, "domain": l.Domain, "type": l.TypeString(),
		"expiry": expiryValue(l.ExpiresAt), "metatitle": l.MetaTitle, "metadescription": l.MetaDescription,
		"description": l.Description, "status": l.Status,
	} {
		f.Values[k] = v
	}
	return f
}

// newLinkForm is the create form's defaults.
func newLinkForm() *form {
	f := newForm()
	f.Values["type"], f.Values["status"] = link.TypeDirect, link.StatusPrivate
	return f
}

// createInput is the API payload of a create: every field filled in.
func createInput(f *form) *api.LinkInput {
	in := &api.LinkInput{}
	for _, name := range linkFields {
		if v := f.Val(name); v != "" {
			*fieldPtr(in, name) = ptr(v)
		}
	}
	return in
}

// editInput is the API payload of an edit: only the fields that differ
// from the link, so an unchanged field is never re-checked (an expiry in
// the past, say) and an unchanged alias keeps its kind.
func editInput(f *form, l *link.Link, removePassword bool) *api.LinkInput {
	in := &api.LinkInput{}
	old := formOfLink(l)
	for _, name := range linkFields {
		if name != "password" && f.Val(name) != old.Val(name) {
			*fieldPtr(in, name) = ptr(f.Val(name))
		}
	}
	if removePassword {
		in.Password = ptr("")
	} else if pw := f.Val("password"); pw != "" {
		in.Password = ptr(pw)
	}
	return in
}

// fieldPtr is the LinkInput field of a form field.
func fieldPtr(in *api.LinkInput, name string) **string {
	switch name {
	case "url":
		return &in.URL
	case "custom":
		return &in.Custom
	case "domain":
		return &in.Domain
	case "type":
		return &in.Type
	case "password":
		return &in.Password
	case "expiry":
		return &in.Expiry
	case "metatitle":
		return &in.MetaTitle
	case "metadescription":
		return &in.MetaDescription
	case "description":
		return &in.Description
	}
	return &in.Status
}

func ptr(s string) *string { return &s }

// apiExpiry converts the form's expiry to the API's form (UTC); "" stays
// "" (none). A value no control produces is a refusal on the field.
func apiExpiry(f *form, in *api.LinkInput) {
	if in.Expiry == nil || *in.Expiry == "" {
		return
	}
	v := strings.TrimSpace(*in.Expiry)
	for _, layout := range []string{expiryLayout, expiryLayout + ":05", link.TimeLayout, "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, v, time.UTC); err == nil {
			in.Expiry = ptr(t.Format(link.TimeLayout))
			return
		}
	}
	if _, err := time.Parse(link.DateLayout, v); err == nil {
		return // the API's own date form: the end of that day
	}
	f.fail("expiry", "enter a date and a time (UTC), such as 2030-12-31 23:59", http.StatusBadRequest)
}

// expiryValue is an expiry as the datetime-local control shows it.
func expiryValue(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(expiryLayout)
}

// linkChoices loads the user's domains, splash pages and overlays for the
// form's selects; current is the edited link's type, kept as an option.
func (s *Server) linkChoices(ctx context.Context, u *link.User, current string) (domains, types []choice, err error) {
	domains = []choice{{"", s.cfg.BaseHost + " (default)"}}
	ds, err := s.store.DomainsOf(ctx, u.ID)
	if err != nil {
		return nil, nil, err
	}
	for _, d := range ds {
		domains = append(domains, choice{d.Domain, strings.TrimPrefix(strings.TrimPrefix(d.Domain, "https://"), "http://")})
	}
	types = []choice{
		{link.TypeDirect, "Direct redirect"},
		{link.TypeFrame, "Frame: the page under the short link"},
		{link.TypeSplash, "Splash page (standard)"},
		{link.TypeOverlay, "Overlay (standard)"},
	}
	splash, _, err := s.store.ListSplashPages(ctx, u.ID, 100, 0)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range splash {
		types = append(types, choice{"splash-" + strconv.FormatInt(p.ID, 10), "Splash page: " + p.Name})
	}
	overlays, _, err := s.store.ListOverlays(ctx, u.ID, 100, 0)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range overlays {
		types = append(types, choice{"overlay-" + strconv.FormatInt(o.ID, 10), "Overlay: " + o.Name})
	}
	if current != "" && !hasChoice(types, current) {
		types = append(types, choice{current, current})
	}
	return domains, types, nil
}

func hasChoice(cs []choice, v string) bool {
	for _, c := range cs {
		if c.Value == v {
			return true
		}
	}
	return false
}

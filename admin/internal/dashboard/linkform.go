package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"kurz/admin/internal/api"
	"kurz/shared/link"
)

// The create/edit form of a link: every field of POST /api/url/add. Its
// scalar fields are named as in the API, so a refusal of api.Server.AddLink
// / UpdateLink lands next to the field it names; the rule lists are rows
// (linkrows.go) whose errors are keyed by the API's own paths
// ("geotarget[1].location"). The form only converts what the browser's
// controls produce (a datetime-local, rows, a select's id) into the API's
// payload, which the API decodes and checks as it would a JSON body.

// linkFields are the form's scalar fields, named as in the API except the
// deep links (deeplink.ios_store → ios_store).
var linkFields = []string{"url", "custom", "domain", "type", "password", "expiry",
	"metatitle", "metadescription", "metaimage", "description", "status", "channel", "campaign",
	"ios_store", "android_store"}

// stringFields are the scalar fields the payload carries as strings.
var stringFields = []string{"url", "custom", "domain", "type", "password", "expiry",
	"metatitle", "metadescription", "metaimage", "description", "status"}

// linkFieldMap maps API field names to the form's; linkFieldsFor adds the
// rows' fields.
var linkFieldMap = func() map[string]string {
	m := map[string]string{"deeplink.ios_store": "ios_store", "deeplink.android_store": "android_store", "pixels": "pixels"}
	for _, f := range linkFields {
		m[f] = f
	}
	return m
}()

// expiryLayout is a datetime-local control's value, to the minute.
const expiryLayout = "2006-01-02T15:04"

// choice is an option of a select.
type choice struct{ Value, Label string }

// pixelChoice is one of the user's pixels, a checkbox of the form.
type pixelChoice struct {
	ID      int64
	Label   string
	Checked bool
}

// linkFormData is the create/edit page's.
type linkFormData struct {
	Form        *form
	Link        *link.Link // the link edited; nil when creating
	Domains     []choice
	Types       []choice
	Channels    []choice
	Campaigns   []choice
	Pixels      []pixelChoice
	Rules       []*ruleList // geo, device, language
	Params      *ruleList
	Visitor     visitorFacts
	Preview     *linkPreview
	HasPassword bool
	Countries   []choice
	Devices     []choice
}

// linkForm reads the posted link form; removePassword is the edit form's
// checkbox.
func linkForm(r *http.Request) (f *form, rows *linkRows, removePassword bool) {
	f = readForm(r, append(linkFields, "password_remove", "do")...)
	if f.Val("do") == "" || f.Val("do") == "save" {
		f.Values["do"] = buttonAction(r)
	}
	return f, readRows(r), f.Val("password_remove") != ""
}

// buttonAction is the action of the row or preview button that sent the
// form: those buttons are inputs named for their action ("add-geo",
// "del-geo-2", "preview"), as a button's name and value are both its
// label for an input. "" is saving (Save, or Enter in a field).
func buttonAction(r *http.Request) string {
	for name := range r.PostForm {
		if name == "preview" || strings.HasPrefix(name, "add-") || strings.HasPrefix(name, "del-") {
			return name
		}
	}
	return ""
}

// formOfLink fills the edit form with the link's values.
func formOfLink(l *link.Link) *form {
	f := newForm()
	for k, v := range map[string]string{
		"url": l.LongURL, "custom": l.Alias, "domain": l.Domain, "type": l.TypeString(),
		"expiry": expiryValue(l.ExpiresAt), "metatitle": l.MetaTitle, "metadescription": l.MetaDescription,
		"metaimage": l.MetaImage, "description": l.Description, "status": l.Status,
		"channel": idValue(l.ChannelID), "campaign": idValue(l.CampaignID),
		"ios_store": l.DeeplinkIOS, "android_store": l.DeeplinkAndroid,
	} {
		f.Values[k] = v
	}
	return f
}

// idValue is an optional id as a select's value ("" = none).
func idValue(id *int64) string {
	if id == nil || *id == 0 {
		return ""
	}
	return strconv.FormatInt(*id, 10)
}

// newLinkForm is the create form's defaults.
func newLinkForm() *form {
	f := newForm()
	f.Values["type"], f.Values["status"] = link.TypeDirect, link.StatusPrivate
	return f
}

// payload is the API body of the form: every field that has a value, in
// the API's JSON shape. A value the form cannot turn into the API's type
// (an id that is not a number) is a refusal on its field.
func payload(f *form, rows *linkRows) map[string]any {
	p := map[string]any{}
	for _, name := range stringFields {
		if v := f.Val(name); v != "" {
			p[name] = v
		}
	}
	for _, name := range []string{"channel", "campaign"} {
		if v := f.Val(name); v != "" {
			id, err := strconv.ParseInt(v, 10, 64)
			if err != nil || id <= 0 {
				f.fail(name, "pick one from the list", http.StatusBadRequest)
				continue
			}
			p[name] = id
		}
	}
	if ios, android := f.Val("ios_store"), f.Val("android_store"); ios != "" || android != "" {
		p["deeplink"] = map[string]string{"ios_store": ios, "android_store": android}
	}
	rows.into(p)
	return p
}

// emptyOf is the payload value that clears field on an edit.
func emptyOf(field string) any {
	switch field {
	case "channel", "campaign":
		return 0
	case "deeplink":
		return map[string]string{"ios_store": "", "android_store": ""}
	case "geotarget", "devicetarget", "languagetarget", "parameters", "pixels":
		return []any{}
	}
	return ""
}

// createInput is the API payload of a create: every field filled in.
func createInput(f *form, rows *linkRows) *api.LinkInput {
	return decodeInput(f, payload(f, rows))
}

// editInput is the API payload of an edit: only the fields that differ
// from the link, so an unchanged field is never re-checked (an expiry in
// the past, say) and an unchanged alias keeps its kind.
func editInput(f *form, rows *linkRows, l *link.Link, removePassword bool) *api.LinkInput {
	now, old := payload(f, rows), payload(formOfLink(l), rowsOfLink(l))
	delete(now, "password")
	p := map[string]any{}
	for k, v := range now {
		if !sameJSON(v, old[k]) {
			p[k] = v
		}
	}
	for k := range old {
		if _, ok := now[k]; !ok {
			p[k] = emptyOf(k)
		}
	}
	if removePassword {
		p["password"] = ""
	} else if pw := f.Val("password"); pw != "" {
		p["password"] = pw
	}
	return decodeInput(f, p)
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// decodeInput decodes p as the API decodes a JSON body (the list fields'
// own decoders included); a refusal lands on f.
func decodeInput(f *form, p map[string]any) *api.LinkInput {
	in := &api.LinkInput{}
	raw, err := json.Marshal(p)
	if err == nil {
		err = json.Unmarshal(raw, in)
	}
	if err != nil && !f.refuse(err, linkFieldMap) {
		f.Alert = sentence(fmt.Sprint(err))
		f.Status = http.StatusBadRequest
	}
	return in
}

// fieldPtr is the LinkInput field of a string form field.
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
	case "metaimage":
		return &in.MetaImage
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

// choiceLimit bounds each pick list of the form (the user's pages,
// pixels, channels, campaigns): the API accepts any of the user's ids,
// the form offers the newest this many.
const choiceLimit = 200

// linkChoices loads the user's domains, splash pages, overlays, pixels,
// channels and campaigns for the form's pick lists; the edited link's
// current values stay options even when past the list's limit.
func (s *Server) linkChoices(ctx context.Context, u *link.User, d *linkFormData, rows *linkRows) error {
	f := d.Form
	d.Domains = []choice{{"", s.cfg.BaseHost + " (default)"}}
	ds, err := s.store.DomainsOf(ctx, u.ID)
	if err != nil {
		return err
	}
	for _, dm := range ds {
		d.Domains = append(d.Domains, choice{dm.Domain, strings.TrimPrefix(strings.TrimPrefix(dm.Domain, "https://"), "http://")})
	}
	d.Types = []choice{
		{link.TypeDirect, "Direct redirect"},
		{link.TypeFrame, "Frame: the page under the short link"},
		{link.TypeSplash, "Splash page (standard)"},
		{link.TypeOverlay, "Overlay (standard)"},
	}
	splash, _, err := s.store.ListSplashPages(ctx, u.ID, choiceLimit, 0)
	if err != nil {
		return err
	}
	for _, p := range splash {
		d.Types = append(d.Types, choice{"splash-" + strconv.FormatInt(p.ID, 10), "Splash page: " + p.Name})
	}
	overlays, _, err := s.store.ListOverlays(ctx, u.ID, choiceLimit, 0)
	if err != nil {
		return err
	}
	for _, o := range overlays {
		d.Types = append(d.Types, choice{"overlay-" + strconv.FormatInt(o.ID, 10), "Overlay: " + o.Name})
	}
	d.Types = keepChoice(d.Types, f.Val("type"))
	if err := s.groupChoices(ctx, u, d); err != nil {
		return err
	}
	pixels, _, err := s.store.ListPixels(ctx, u.ID, choiceLimit, 0)
	if err != nil {
		return err
	}
	for _, p := range pixels {
		d.Pixels = append(d.Pixels, pixelChoice{ID: p.ID, Label: p.Name + " (" + p.Type + ")", Checked: rows.hasPixel(p.ID)})
	}
	return nil
}

// groupChoices loads the channel and campaign pick lists.
func (s *Server) groupChoices(ctx context.Context, u *link.User, d *linkFormData) error {
	d.Channels = []choice{{"", "None"}}
	channels, _, err := s.store.ListChannels(ctx, u.ID, choiceLimit, 0)
	if err != nil {
		return err
	}
	for _, c := range channels {
		d.Channels = append(d.Channels, choice{strconv.FormatInt(c.ID, 10), c.Name})
	}
	d.Channels = keepChoice(d.Channels, d.Form.Val("channel"))
	d.Campaigns = []choice{{"", "None"}}
	campaigns, _, err := s.store.ListCampaigns(ctx, u.ID, choiceLimit, 0)
	if err != nil {
		return err
	}
	for _, c := range campaigns {
		d.Campaigns = append(d.Campaigns, choice{strconv.FormatInt(c.ID, 10), c.Name})
	}
	d.Campaigns = keepChoice(d.Campaigns, d.Form.Val("campaign"))
	return nil
}

// keepChoice adds v as an option when it is not one (the edited link's
// value past the list's limit, or a value the API will refuse on save).
func keepChoice(cs []choice, v string) []choice {
	if v == "" || hasChoice(cs, v) {
		return cs
	}
	return append(cs, choice{v, v})
}

func hasChoice(cs []choice, v string) bool {
	for _, c := range cs {
		if c.Value == v {
			return true
		}
	}
	return false
}

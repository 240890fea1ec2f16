package dashboard

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"kurz/admin/internal/api"
	"kurz/shared/link"
	"kurz/shared/pgstore"
)

// Channels: the list, add, edit and delete through the API server's own
// write path (api.Server.AddChannel / UpdateChannel / DeleteChannel), and
// a channel's page with its items of all three kinds (links, bio pages,
// QR codes), a form that puts one more in (api.Server.AssignChannel,
// what POST /api/channel/:id/assign/:type/:itemid calls) and a button per
// item that takes it out (api.Server.RemoveFromChannel, the DELETE).

const channelsPerPage = 25

type channelRow struct {
	ID          int64
	Name        string
	Description string
	Color       string
	Starred     bool
	Created     string
}

func channelRowOf(c *link.Channel) channelRow {
	return channelRow{ID: c.ID, Name: c.Name, Description: c.Description, Color: c.Color, Starred: c.Starred, Created: when(c.CreatedAt)}
}

type channelsData struct {
	Rows    []channelRow
	Total   int
	Page    int
	PrevURL string
	NextURL string
}

func (s *Server) channelsPage(w http.ResponseWriter, r *http.Request, c *call) error {
	page, err := listPage(r)
	if err != nil {
		return err
	}
	cs, total, err := s.store.ListChannels(r.Context(), c.user.ID, channelsPerPage, (page-1)*channelsPerPage)
	if err != nil {
		return err
	}
	d := channelsData{Total: total, Page: page}
	for i := range cs {
		d.Rows = append(d.Rows, channelRowOf(&cs[i]))
	}
	d.PrevURL, d.NextURL = pagerURLs("/channels", page, channelsPerPage, total)
	s.render(w, r, c, http.StatusOK, "channels", "Channels", d)
	return nil
}

type channelFormData struct {
	Form   *form
	Action string
	Edit   bool
}

var channelFormFields = []string{"name", "description", "color", "starred"}

var channelFields = map[string]string{"name": "name", "description": "description", "color": "color"}

func (s *Server) showChannelForm(w http.ResponseWriter, r *http.Request, c *call, f *form, action string, edit bool) error {
	title := "New channel"
	if edit {
		title = "Edit channel"
	}
	s.render(w, r, c, f.Status, "channelform", title, channelFormData{Form: f, Action: action, Edit: edit})
	return nil
}

// channelInput is the API's payload of the form; every field is sent (an
// empty colour or description clears it, as the API reads "").
func channelInput(f *form) *api.ChannelInput {
	name, desc, color, starred := f.Val("name"), f.Val("description"), f.Val("color"), f.Val("starred") != ""
	return &api.ChannelInput{Name: &name, Description: &desc, Color: &color, Starred: &starred}
}

func (s *Server) newChannelPage(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.showChannelForm(w, r, c, newForm(), "/channels/new", false)
}

func (s *Server) createChannel(w http.ResponseWriter, r *http.Request, c *call) error {
	f := readForm(r, channelFormFields...)
	in := channelInput(f)
	ch, err := s.api.AddChannel(r.Context(), c.user, in)
	if err == nil {
		s.setFlash(w, c, flash{Kind: flashOK, Text: "Channel “" + ch.Name + "” created."})
		http.Redirect(w, r, "/channels/"+strconv.FormatInt(ch.ID, 10), http.StatusSeeOther)
		return nil
	}
	if !f.refuse(err, channelFields) {
		return err
	}
	if badRequest(err) {
		f.refuseAll(api.ChannelErrors(in), channelFields)
	}
	return s.showChannelForm(w, r, c, f, "/channels/new", false)
}

// ownChannel loads the path's channel if it is the caller's; any other id
// (malformed, unknown, another user's) is the same 404.
func (s *Server) ownChannel(r *http.Request, c *call) (link.Channel, error) {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return link.Channel{}, errNotFound
	}
	return s.store.ChannelByID(r.Context(), c.user.ID, id)
}

// channelItem is one item of a channel's page.
type channelItem struct {
	Kind  string // a label: Link, Bio page, QR code
	Title string
	Href  string // its public address
	Shows string // what it leads to or is
	Edit  string // the dashboard page of the item, "" without one
	Date  string
	Item  string // kind:id, what the remove form sends
}

type channelData struct {
	Channel channelRow
	Items   []channelItem
	Total   int
	Page    int
	PrevURL string
	NextURL string
	Choices []choiceGroup
	Form    *form
}

// choiceGroup is an optgroup of the assign form's select.
type choiceGroup struct {
	Label   string
	Options []choice
}

func (s *Server) channelPage(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.showChannel(w, r, c, newForm())
}

func (s *Server) showChannel(w http.ResponseWriter, r *http.Request, c *call, f *form) error {
	ch, err := s.ownChannel(r, c)
	if err != nil {
		return err
	}
	page, err := listPage(r)
	if err != nil {
		return err
	}
	items, total, err := s.store.ChannelItems(r.Context(), c.user.ID, ch.ID, channelsPerPage, (page-1)*channelsPerPage)
	if err != nil {
		return err
	}
	d := channelData{Channel: channelRowOf(&ch), Total: total, Page: page, Form: f}
	for i := range items {
		d.Items = append(d.Items, s.channelItemOf(&items[i], c.user.Username))
	}
	d.PrevURL, d.NextURL = pagerURLs("/channels/"+strconv.FormatInt(ch.ID, 10), page, channelsPerPage, total)
	if d.Choices, err = s.channelChoices(r, c); err != nil {
		return err
	}
	s.render(w, r, c, f.Status, "channel", ch.Name, d)
	return nil
}

// channelItemOf describes an item as the API's item list does (itemJSON).
func (s *Server) channelItemOf(it *link.ChannelItem, username string) channelItem {
	out := channelItem{Title: it.Title, Date: when(it.CreatedAt), Item: it.Kind + ":" + strconv.FormatInt(it.ID, 10)}
	switch it.Kind {
	case link.ItemLinks:
		base := it.Domain
		if base == "" {
			base = s.cfg.BaseURL
		}
		out.Kind, out.Href, out.Shows = "Link", base+"/"+it.Alias, it.Target
		out.Edit = "/links/" + strconv.FormatInt(it.ID, 10) + "/edit"
	case link.ItemBio:
		out.Kind, out.Href = "Bio page", link.BioURL(s.cfg.BaseURL, username, it.Alias)
		out.Shows = out.Href
	case link.ItemQR:
		out.Kind, out.Href = "QR code", s.cfg.BaseURL+"/qr/"+it.Alias
		out.Shows = out.Href
	}
	return out
}

// channelChoices are the user's items for the assign form, newest 200 of
// each kind (choiceLimit, as the link form's lists).
func (s *Server) channelChoices(r *http.Request, c *call) ([]choiceGroup, error) {
	ctx := r.Context()
	var bios, qrs choiceGroup
	links, err := s.linkOptions(r, c, link.ItemLinks+":")
	if err != nil {
		return nil, err
	}
	bs, _, err := s.store.ListBioPages(ctx, c.user.ID, choiceLimit, 0)
	if err != nil {
		return nil, err
	}
	bios.Label = "Bio pages"
	for _, b := range bs {
		bios.Options = append(bios.Options, choice{Value: link.ItemBio + ":" + strconv.FormatInt(b.ID, 10), Label: b.Title + " (" + b.Alias + ")"})
	}
	qs, _, err := s.store.ListQRs(ctx, c.user.ID, choiceLimit, 0)
	if err != nil {
		return nil, err
	}
	qrs.Label = "QR codes"
	for _, q := range qs {
		qrs.Options = append(qrs.Options, choice{Value: link.ItemQR + ":" + strconv.FormatInt(q.ID, 10), Label: q.Name})
	}
	var out []choiceGroup
	for _, g := range []choiceGroup{links, bios, qrs} {
		if len(g.Options) > 0 {
			out = append(out, g)
		}
	}
	return out, nil
}

// linkOptions are the user's newest choiceLimit links as options whose
// values are prefix and the link's id.
func (s *Server) linkOptions(r *http.Request, c *call, prefix string) (choiceGroup, error) {
	g := choiceGroup{Label: "Links"}
	page, err := s.store.SearchLinks(r.Context(), pgstore.LinkQuery{UserID: c.user.ID, Limit: choiceLimit, NoTotal: true})
	if err != nil {
		return g, err
	}
	for i := range page.Links {
		l := &page.Links[i]
		g.Options = append(g.Options, choice{Value: prefix + strconv.FormatInt(l.ID, 10), Label: s.rowOf(l).ShortText + " → " + l.LongURL})
	}
	return g, nil
}

// assignItem puts one of the user's items into the channel.
func (s *Server) assignItem(w http.ResponseWriter, r *http.Request, c *call) error {
	ch, err := s.ownChannel(r, c)
	if err != nil {
		return err
	}
	f := readForm(r, "item")
	kind, rawID, _ := strings.Cut(f.Val("item"), ":")
	id, ok := link.ParseID(rawID)
	if !ok {
		f.fail("item", "choose an item", http.StatusBadRequest)
		return s.showChannel(w, r, c, f)
	}
	err = s.api.AssignChannel(r.Context(), c.user, ch.ID, kind, id)
	if err == nil {
		s.setFlash(w, c, flash{Kind: flashOK, Text: "Added to “" + ch.Name + "”."})
		http.Redirect(w, r, "/channels/"+strconv.FormatInt(ch.ID, 10), http.StatusSeeOther)
		return nil
	}
	if !f.refuse(err, map[string]string{"type": "item"}) {
		// Another user's or an unknown item: the API's 404 names it.
		if pe := s.pageErrorOf(r, err); pe.status == http.StatusNotFound {
			f.fail("item", "this item is not one of yours", http.StatusNotFound)
			return s.showChannel(w, r, c, f)
		}
		return err
	}
	return s.showChannel(w, r, c, f)
}

// removeItem takes one item out of the channel. The item stays as it is
// otherwise; a stale page (already removed) says so instead of failing.
func (s *Server) removeItem(w http.ResponseWriter, r *http.Request, c *call) error {
	ch, err := s.ownChannel(r, c)
	if err != nil {
		return err
	}
	kind, rawID, _ := strings.Cut(r.PostFormValue("item"), ":")
	id, ok := link.ParseID(rawID)
	if !ok || !slices.Contains(link.ItemKinds, kind) {
		return &pageError{status: http.StatusBadRequest, title: "Nothing to remove", text: "The form named no item of this channel."}
	}
	removed, err := s.api.RemoveFromChannel(r.Context(), c.user, ch.ID, kind, id)
	if err != nil {
		return err
	}
	text := "Removed from “" + ch.Name + "”. It keeps working, outside the channel."
	if !removed {
		text = "That item was no longer in “" + ch.Name + "”."
	}
	s.setFlash(w, c, flash{Kind: flashOK, Text: text})
	http.Redirect(w, r, samePage("/channels/"+strconv.FormatInt(ch.ID, 10), r), http.StatusSeeOther)
	return nil
}

func (s *Server) editChannelPage(w http.ResponseWriter, r *http.Request, c *call) error {
	ch, err := s.ownChannel(r, c)
	if err != nil {
		return err
	}
	f := newForm()
	f.Values["name"], f.Values["description"], f.Values["color"] = ch.Name, ch.Description, ch.Color
	if ch.Starred {
		f.Values["starred"] = "1"
	}
	return s.showChannelForm(w, r, c, f, "/channels/"+strconv.FormatInt(ch.ID, 10)+"/edit", true)
}

func (s *Server) saveChannel(w http.ResponseWriter, r *http.Request, c *call) error {
	ch, err := s.ownChannel(r, c)
	if err != nil {
		return err
	}
	f := readForm(r, channelFormFields...)
	in := channelInput(f)
	err = s.api.UpdateChannel(r.Context(), c.user, ch.ID, in)
	if err == nil {
		s.setFlash(w, c, flash{Kind: flashOK, Text: "Channel saved."})
		http.Redirect(w, r, "/channels/"+strconv.FormatInt(ch.ID, 10), http.StatusSeeOther)
		return nil
	}
	if !f.refuse(err, channelFields) {
		return err
	}
	if badRequest(err) {
		f.refuseAll(api.ChannelErrors(in), channelFields)
	}
	return s.showChannelForm(w, r, c, f, "/channels/"+strconv.FormatInt(ch.ID, 10)+"/edit", true)
}

func (s *Server) deleteChannelPage(w http.ResponseWriter, r *http.Request, c *call) error {
	ch, err := s.ownChannel(r, c)
	if err != nil {
		return err
	}
	_, total, err := s.store.ChannelItems(r.Context(), c.user.ID, ch.ID, 1, 0)
	if err != nil {
		return err
	}
	s.render(w, r, c, http.StatusOK, "channeldelete", "Delete channel", channelData{Channel: channelRowOf(&ch), Total: total})
	return nil
}

func (s *Server) deleteChannel(w http.ResponseWriter, r *http.Request, c *call) error {
	ch, err := s.ownChannel(r, c)
	if err != nil {
		return err
	}
	if err := s.api.DeleteChannel(r.Context(), c.user, ch.ID); err != nil {
		return err
	}
	s.setFlash(w, c, flash{Kind: flashOK, Text: "Channel “" + ch.Name + "” deleted. Its items keep working, outside any channel."})
	http.Redirect(w, r, "/channels", http.StatusSeeOther)
	return nil
}

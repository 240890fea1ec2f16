package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"kurz/admin/internal/api"
	"kurz/shared/link"
)

// Campaigns: the list (rotator and public list URLs), add, edit and delete
// through the API server's own write path (api.Server.AddCampaign /
// UpdateCampaign / DeleteCampaign, what /api/campaign/… call), and a
// campaign's page with the links in it, where links are put in and taken
// out (api.Server.AssignCampaign / RemoveFromCampaign).

const campaignsPerPage = 25

type campaignRow struct {
	ID      int64
	Name    string
	Rotator string // "" = no slug, no rotator
	List    string
	Public  bool
	Created string
}

func (s *Server) campaignRowOf(c *link.Campaign, username string) campaignRow {
	name := c.Name
	if name == "" { // the API allows a campaign without a name
		name = "Campaign " + strconv.FormatInt(c.ID, 10)
	}
	return campaignRow{ID: c.ID, Name: name, Rotator: c.RotatorURL(s.cfg.BaseURL), List: c.ListURL(s.cfg.BaseURL, username),
		Public: c.Public, Created: when(c.CreatedAt)}
}

type campaignsData struct {
	Rows    []campaignRow
	Total   int
	Page    int
	PrevURL string
	NextURL string
}

// listPage reads the page number of a paged list (?page=N, 1 without).
func listPage(r *http.Request) (int, error) {
	v := r.URL.Query().Get("page")
	if v == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxListPage {
		return 0, errNotFound
	}
	return n, nil
}

// pagerURLs are the previous and next page addresses of base.
func pagerURLs(base string, page, perPage, total int) (prev, next string) {
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	if page > 1 {
		prev = base + sep + "page=" + strconv.Itoa(page-1)
	}
	if page*perPage < total {
		next = base + sep + "page=" + strconv.Itoa(page+1)
	}
	return prev, next
}

func (s *Server) campaignsPage(w http.ResponseWriter, r *http.Request, c *call) error {
	page, err := listPage(r)
	if err != nil {
		return err
	}
	cs, total, err := s.store.ListCampaigns(r.Context(), c.user.ID, campaignsPerPage, (page-1)*campaignsPerPage)
	if err != nil {
		return err
	}
	d := campaignsData{Total: total, Page: page}
	for i := range cs {
		d.Rows = append(d.Rows, s.campaignRowOf(&cs[i], c.user.Username))
	}
	d.PrevURL, d.NextURL = pagerURLs("/campaigns", page, campaignsPerPage, total)
	s.render(w, r, c, http.StatusOK, "campaigns", "Campaigns", d)
	return nil
}

type campaignFormData struct {
	Form   *form
	Action string
	Edit   bool
	Base   string // the rotator's prefix, shown before the slug field
}

var campaignFormFields = []string{"name", "slug", "public"}

var campaignFields = map[string]string{"name": "name", "slug": "slug"}

func (s *Server) showCampaignForm(w http.ResponseWriter, r *http.Request, c *call, f *form, action string, edit bool) error {
	title := "New campaign"
	if edit {
		title = "Edit campaign"
	}
	s.render(w, r, c, f.Status, "campaignform", title, campaignFormData{Form: f, Action: action, Edit: edit,
		Base: strings.TrimSuffix(s.cfg.BaseURL, "/") + "/r/"})
	return nil
}

// campaignInput is the API's payload of the form; every field is sent
// (an empty slug: no rotator, as the API reads "").
func campaignInput(f *form) *api.CampaignInput {
	name, slug, public := f.Val("name"), f.Val("slug"), f.Val("public") != ""
	return &api.CampaignInput{Name: &name, Slug: &slug, Public: &public}
}

func (s *Server) newCampaignPage(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.showCampaignForm(w, r, c, newForm(), "/campaigns/new", false)
}

func (s *Server) createCampaign(w http.ResponseWriter, r *http.Request, c *call) error {
	f := readForm(r, campaignFormFields...)
	in := campaignInput(f)
	camp, err := s.api.AddCampaign(r.Context(), c.user, in)
	if err == nil {
		s.setFlash(w, c, flash{Kind: flashOK, Text: "Campaign “" + camp.Name + "” created."})
		http.Redirect(w, r, "/campaigns/"+strconv.FormatInt(camp.ID, 10), http.StatusSeeOther)
		return nil
	}
	if !f.refuse(err, campaignFields) {
		return err
	}
	if badRequest(err) {
		f.refuseAll(api.CampaignErrors(in), campaignFields)
	}
	return s.showCampaignForm(w, r, c, f, "/campaigns/new", false)
}

// ownCampaign loads the path's campaign if it is the caller's; any other
// id (malformed, unknown, another user's) is the same 404.
func (s *Server) ownCampaign(r *http.Request, c *call) (link.Campaign, error) {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return link.Campaign{}, errNotFound
	}
	return s.store.CampaignByID(r.Context(), c.user.ID, id)
}

type campaignData struct {
	Campaign campaignRow
	Links    []linkRow
	Total    int
	Page     int
	PrevURL  string
	NextURL  string
	Choices  choiceGroup // the add form's links
	Form     *form
}

// campaignPage shows one campaign: its addresses, the links in it with a
// button that takes one out, and a form that puts one more in.
func (s *Server) campaignPage(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.showCampaign(w, r, c, newForm())
}

func (s *Server) showCampaign(w http.ResponseWriter, r *http.Request, c *call, f *form) error {
	camp, err := s.ownCampaign(r, c)
	if err != nil {
		return err
	}
	page, err := listPage(r)
	if err != nil {
		return err
	}
	links, total, err := s.store.CampaignLinks(r.Context(), c.user.ID, camp.ID, campaignsPerPage, (page-1)*campaignsPerPage)
	if err != nil {
		return err
	}
	d := campaignData{Campaign: s.campaignRowOf(&camp, c.user.Username), Total: total, Page: page, Form: f}
	for i := range links {
		d.Links = append(d.Links, s.rowOf(&links[i]))
	}
	d.PrevURL, d.NextURL = pagerURLs("/campaigns/"+strconv.FormatInt(camp.ID, 10), page, campaignsPerPage, total)
	if d.Choices, err = s.linkOptions(r, c, ""); err != nil {
		return err
	}
	s.render(w, r, c, f.Status, "campaign", d.Campaign.Name, d)
	return nil
}

// assignLink puts one of the user's links into the campaign, moving it out
// of any other (api.Server.AssignCampaign, the API's assign call).
func (s *Server) assignLink(w http.ResponseWriter, r *http.Request, c *call) error {
	camp, err := s.ownCampaign(r, c)
	if err != nil {
		return err
	}
	f := readForm(r, "link")
	id, ok := link.ParseID(f.Val("link"))
	if !ok {
		f.fail("link", "choose a link", http.StatusBadRequest)
		return s.showCampaign(w, r, c, f)
	}
	if err := s.api.AssignCampaign(r.Context(), c.user, camp.ID, id); err != nil {
		if pe := s.pageErrorOf(r, err); pe.status == http.StatusNotFound {
			f.fail("link", "this link is not one of yours", http.StatusNotFound)
			return s.showCampaign(w, r, c, f)
		}
		return err
	}
	s.setFlash(w, c, flash{Kind: flashOK, Text: "Added to “" + s.campaignRowOf(&camp, c.user.Username).Name + "”."})
	http.Redirect(w, r, "/campaigns/"+strconv.FormatInt(camp.ID, 10), http.StatusSeeOther)
	return nil
}

// removeLink takes one link out of the campaign; the link keeps working.
func (s *Server) removeLink(w http.ResponseWriter, r *http.Request, c *call) error {
	camp, err := s.ownCampaign(r, c)
	if err != nil {
		return err
	}
	id, ok := link.ParseID(r.PostFormValue("link"))
	if !ok {
		return &pageError{status: http.StatusBadRequest, title: "Nothing to remove", text: "The form named no link of this campaign."}
	}
	removed, err := s.api.RemoveFromCampaign(r.Context(), c.user, camp.ID, id)
	if err != nil {
		return err
	}
	name := s.campaignRowOf(&camp, c.user.Username).Name
	text := "Removed from “" + name + "”. The link keeps working, outside the campaign."
	if !removed {
		text = "That link was no longer in “" + name + "”."
	}
	s.setFlash(w, c, flash{Kind: flashOK, Text: text})
	http.Redirect(w, r, samePage("/campaigns/"+strconv.FormatInt(camp.ID, 10), r), http.StatusSeeOther)
	return nil
}

// samePage is base at the page number the form was sent from (its "page"
// field), so taking a row out does not lose the user's place.
func samePage(base string, r *http.Request) string {
	n, err := strconv.Atoi(r.PostFormValue("page"))
	if err != nil || n < 2 || n > maxListPage {
		return base
	}
	return base + "?page=" + strconv.Itoa(n)
}

func (s *Server) editCampaignPage(w http.ResponseWriter, r *http.Request, c *call) error {
	camp, err := s.ownCampaign(r, c)
	if err != nil {
		return err
	}
	f := newForm()
	f.Values["name"], f.Values["slug"] = camp.Name, camp.Slug
	if camp.Public {
		f.Values["public"] = "1"
	}
	return s.showCampaignForm(w, r, c, f, "/campaigns/"+strconv.FormatInt(camp.ID, 10)+"/edit", true)
}

func (s *Server) saveCampaign(w http.ResponseWriter, r *http.Request, c *call) error {
	camp, err := s.ownCampaign(r, c)
	if err != nil {
		return err
	}
	f := readForm(r, campaignFormFields...)
	in := campaignInput(f)
	action := "/campaigns/" + strconv.FormatInt(camp.ID, 10) + "/edit"
	saved, err := s.api.UpdateCampaign(r.Context(), c.user, camp.ID, in)
	if err == nil {
		s.setFlash(w, c, flash{Kind: flashOK, Text: "Campaign “" + saved.Name + "” saved."})
		http.Redirect(w, r, "/campaigns/"+strconv.FormatInt(camp.ID, 10), http.StatusSeeOther)
		return nil
	}
	if !f.refuse(err, campaignFields) {
		return err
	}
	if badRequest(err) {
		f.refuseAll(api.CampaignErrors(in), campaignFields)
	}
	return s.showCampaignForm(w, r, c, f, action, true)
}

func (s *Server) deleteCampaignPage(w http.ResponseWriter, r *http.Request, c *call) error {
	camp, err := s.ownCampaign(r, c)
	if err != nil {
		return err
	}
	_, total, err := s.store.CampaignLinks(r.Context(), c.user.ID, camp.ID, 0, 0)
	if err != nil {
		return err
	}
	s.render(w, r, c, http.StatusOK, "campaigndelete", "Delete campaign",
		campaignData{Campaign: s.campaignRowOf(&camp, c.user.Username), Total: total})
	return nil
}

func (s *Server) deleteCampaign(w http.ResponseWriter, r *http.Request, c *call) error {
	camp, err := s.ownCampaign(r, c)
	if err != nil {
		return err
	}
	if err := s.api.DeleteCampaign(r.Context(), c.user, camp.ID); err != nil {
		return err
	}
	s.setFlash(w, c, flash{Kind: flashOK, Text: "Campaign “" + camp.Name + "” deleted. Its links keep working, outside any campaign."})
	http.Redirect(w, r, "/campaigns", http.StatusSeeOther)
	return nil
}

package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"kurz/admin/internal/api"
	"kurz/shared/link"
)

// Pixels: the list, and add, edit and delete through the API server's own
// write path (api.Server.AddPixel / UpdatePixel / DeletePixel, what
// /api/pixel/… call), so a form and a JSON request are refused for the
// same reasons.

const pixelsPerPage = 25

// pixelTypeLabels names the spec's pixel kinds for people; the value sent
// is the stored name, which the API reads.
var pixelTypeLabels = map[string]string{
	"tagmanagerpixel":          "Tag manager",
	"analyticspixel":           "Web analytics",
	"socialnetworkpixel":       "Social network",
	"searchadspixel":           "Search ads",
	"professionalnetworkpixel": "Professional network",
	"microblogpixel":           "Microblog",
	"retargetingpixel":         "Retargeting",
	"questionsitepixel":        "Question site",
	"imageboard":               "Image board",
	"searchengine":             "Search engine",
	"messagingapp":             "Messaging app",
	"forumsite":                "Forum site",
	"shortvideo":               "Short video",
}

func pixelTypeLabel(typ string) string {
	if l, ok := pixelTypeLabels[typ]; ok {
		return l
	}
	return typ
}

// pixelTypeChoices are the select's options in the spec's order, with an
// empty first one so a new pixel's kind is picked, not defaulted.
func pixelTypeChoices() []choice {
	out := []choice{{Value: "", Label: "Choose…"}}
	for _, t := range link.PixelTypes {
		out = append(out, choice{Value: t, Label: pixelTypeLabel(t)})
	}
	return out
}

type pixelRow struct {
	ID      int64
	Name    string
	Type    string
	Tag     string
	Created string
}

type pixelsData struct {
	Rows    []pixelRow
	Total   int
	Page    int
	PrevURL string
	NextURL string
}

func (s *Server) pixelsPage(w http.ResponseWriter, r *http.Request, c *call) error {
	page, err := listPage(r)
	if err != nil {
		return err
	}
	pixels, total, err := s.store.ListPixels(r.Context(), c.user.ID, pixelsPerPage, (page-1)*pixelsPerPage)
	if err != nil {
		return err
	}
	d := pixelsData{Total: total, Page: page}
	for _, p := range pixels {
		d.Rows = append(d.Rows, pixelRow{ID: p.ID, Name: p.Name, Type: pixelTypeLabel(p.Type), Tag: p.Tag, Created: when(p.CreatedAt)})
	}
	d.PrevURL, d.NextURL = pagerURLs("/pixels", page, pixelsPerPage, total)
	s.render(w, r, c, http.StatusOK, "pixels", "Pixels", d)
	return nil
}

// pixelFormData is the add and edit page's.
type pixelFormData struct {
	Form   *form
	Types  []choice
	Action string
	Edit   bool
}

var pixelFormFields = []string{"type", "name", "tag"}

// pixelFields maps the API's field names to the form's (the same).
var pixelFields = map[string]string{"type": "type", "name": "name", "tag": "tag"}

func (s *Server) showPixelForm(w http.ResponseWriter, r *http.Request, c *call, f *form, action string, edit bool) error {
	title := "New pixel"
	if edit {
		title = "Edit pixel"
	}
	s.render(w, r, c, f.Status, "pixelform", title, pixelFormData{Form: f, Types: pixelTypeChoices(), Action: action, Edit: edit})
	return nil
}

func (s *Server) newPixelPage(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.showPixelForm(w, r, c, newForm(), "/pixels/new", false)
}

// pixelInput is the API's payload of the form: every field is sent, so
// an empty one is refused as the API refuses it ("required").
func pixelInput(f *form) *api.PixelInput {
	typ, name, tag := f.Val("type"), f.Val("name"), f.Val("tag")
	return &api.PixelInput{Type: &typ, Name: &name, Tag: &tag}
}

func (s *Server) createPixel(w http.ResponseWriter, r *http.Request, c *call) error {
	f := readForm(r, pixelFormFields...)
	in := pixelInput(f)
	p, err := s.api.AddPixel(r.Context(), c.user, in)
	if err == nil {
		s.setFlash(w, c, flash{Kind: flashOK, Text: "Pixel “" + p.Name + "” added. Pick it on a link's form to fire it on visits."})
		http.Redirect(w, r, "/pixels", http.StatusSeeOther)
		return nil
	}
	if !f.refuse(err, pixelFields) {
		return err
	}
	if badRequest(err) {
		f.refuseAll(api.PixelErrors(in), pixelFields)
	}
	return s.showPixelForm(w, r, c, f, "/pixels/new", false)
}

// ownPixel loads the path's pixel if it is the caller's; any other id
// (malformed, unknown, another user's) is the same 404.
func (s *Server) ownPixel(r *http.Request, c *call) (*link.Pixel, error) {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return nil, errNotFound
	}
	return s.store.PixelByID(r.Context(), c.user.ID, id)
}

func (s *Server) editPixelPage(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := s.ownPixel(r, c)
	if err != nil {
		return err
	}
	f := newForm()
	f.Values["type"], f.Values["name"], f.Values["tag"] = p.Type, p.Name, p.Tag
	return s.showPixelForm(w, r, c, f, "/pixels/"+strconv.FormatInt(p.ID, 10)+"/edit", true)
}

func (s *Server) savePixel(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := s.ownPixel(r, c)
	if err != nil {
		return err
	}
	f := readForm(r, pixelFormFields...)
	in := pixelInput(f)
	err = s.api.UpdatePixel(r.Context(), c.user, p.ID, in)
	if err == nil {
		s.setFlash(w, c, flash{Kind: flashOK, Text: "Pixel “" + strings.TrimSpace(f.Val("name")) + "” saved."})
		http.Redirect(w, r, "/pixels", http.StatusSeeOther)
		return nil
	}
	if !f.refuse(err, pixelFields) {
		return err
	}
	if badRequest(err) {
		f.refuseAll(api.PixelErrors(in), pixelFields)
	}
	return s.showPixelForm(w, r, c, f, "/pixels/"+strconv.FormatInt(p.ID, 10)+"/edit", true)
}

func (s *Server) deletePixelPage(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := s.ownPixel(r, c)
	if err != nil {
		return err
	}
	s.render(w, r, c, http.StatusOK, "pixeldelete", "Delete pixel", pixelRow{ID: p.ID, Name: p.Name,
		Type: pixelTypeLabel(p.Type), Tag: p.Tag, Created: when(p.CreatedAt)})
	return nil
}

func (s *Server) deletePixel(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := s.ownPixel(r, c)
	if err != nil {
		return err
	}
	if err := s.api.DeletePixel(r.Context(), c.user, p.ID); err != nil {
		return err
	}
	s.setFlash(w, c, flash{Kind: flashOK, Text: "Pixel “" + p.Name + "” deleted. Links that used it no longer fire it."})
	http.Redirect(w, r, "/pixels", http.StatusSeeOther)
	return nil
}

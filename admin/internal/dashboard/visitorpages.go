package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"kurz/shared/link"
	"kurz/shared/visitorpage"
)

// The user's own visitor pages, overlays and splash pages: the list, add,
// edit and delete, each form with a live preview of the page a visitor
// gets (visitorpreview.go). The two kinds share these handlers and
// templates; vpKind holds what differs (overlays.go, splash.go), and every
// write goes through the API server's own functions.

const visitorPagesPerPage = 25

// vpKind is one kind of visitor page.
type vpKind struct {
	Path   string // "/overlays": the list; Path+"/new", Path+"/{id}/edit", …
	Noun   string // "overlay"
	Plural string // "Overlays"
	// fields are the form's, named as the API names them.
	fields []string
	// blank is a new form's values.
	blank func() map[string]string
	list  func(ctx context.Context, userID int64, limit, offset int) ([]vpRecord, int, error)
	load  func(ctx context.Context, userID, id int64) (vpRecord, error)
	// save adds (id 0) or updates the record from the form through the
	// API; check is every field's refusal at once, without writing.
	save   func(ctx context.Context, u *link.User, id int64, f *form) error
	check  func(f *form) []error
	delete func(ctx context.Context, u *link.User, id int64) error
	// page is what the edge renders for the form's values, for a visit
	// that goes on to dest; image stands in for the form's image.
	page func(f *form, dest, image string) visitorpage.Data
}

// fieldMap maps the API's field names to the form's (the same).
func (k *vpKind) fieldMap() map[string]string {
	m := make(map[string]string, len(k.fields))
	for _, n := range k.fields {
		m[n] = n
	}
	return m
}

// vpRecord is one stored visitor page as the pages show it: Values are
// its form values.
type vpRecord struct {
	ID      int64
	Name    string
	Created time.Time
	Values  map[string]string
}

// vpRecords are the records of a list page.
func vpRecords[T any](items []T, total int, err error, of func(*T) vpRecord) ([]vpRecord, int, error) {
	out := make([]vpRecord, 0, len(items))
	for i := range items {
		out = append(out, of(&items[i]))
	}
	return out, total, err
}

func (s *Server) visitorPageRoutes(mux *http.ServeMux, k *vpKind) {
	s.route(mux, "GET "+k.Path, s.signedIn(s.vpList(k)))
	s.route(mux, "GET "+k.Path+"/new", s.signedIn(s.vpNew(k)))
	s.route(mux, "POST "+k.Path+"/new", s.signedIn(s.vpSave(k, false)))
	s.route(mux, "GET "+k.Path+"/preview", s.signedIn(s.vpPreview(k)))
	s.route(mux, "GET "+k.Path+"/{id}/edit", s.signedIn(s.vpEdit(k)))
	s.route(mux, "POST "+k.Path+"/{id}/edit", s.signedIn(s.vpSave(k, true)))
	s.route(mux, "GET "+k.Path+"/{id}/delete", s.signedIn(s.vpDeletePage(k)))
	s.route(mux, "POST "+k.Path+"/{id}/delete", s.signedIn(s.vpDelete(k)))
}

type vpListData struct {
	Kind    *vpKind
	Rows    []vpRecord
	Total   int
	Page    int
	PrevURL string
	NextURL string
}

func (s *Server) vpList(k *vpKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		page, err := listPage(r)
		if err != nil {
			return err
		}
		rows, total, err := k.list(r.Context(), c.user.ID, visitorPagesPerPage, (page-1)*visitorPagesPerPage)
		if err != nil {
			return err
		}
		d := vpListData{Kind: k, Rows: rows, Total: total, Page: page}
		d.PrevURL, d.NextURL = pagerURLs(k.Path, page, visitorPagesPerPage, total)
		s.render(w, r, c, http.StatusOK, "vplist", k.Plural, d)
		return nil
	}
}

// vpFormData is the add and edit page's.
type vpFormData struct {
	Kind       *vpKind
	Form       *form
	Action     string
	Edit       bool
	PreviewURL string
	Positions  []choice
}

func (s *Server) showVPForm(w http.ResponseWriter, r *http.Request, c *call, k *vpKind, f *form, id int64) error {
	d := vpFormData{Kind: k, Form: f, Action: k.Path + "/new", PreviewURL: k.previewURL(f), Positions: overlayPositions()}
	title := "New " + k.Noun
	if id != 0 {
		d.Edit, d.Action, title = true, k.recordPath(id)+"/edit", "Edit "+k.Noun
	}
	allowPreviewFrame(w.Header(), c.nonce)
	s.render(w, r, c, f.Status, "vpform", title, d)
	return nil
}

func (k *vpKind) recordPath(id int64) string { return k.Path + "/" + strconv.FormatInt(id, 10) }

// previewURL is the preview of the form's values (the script keeps it
// current as they change).
func (k *vpKind) previewURL(f *form) string {
	q := url.Values{}
	for _, n := range k.fields {
		if n != "name" {
			q.Set(n, f.Val(n))
		}
	}
	return k.Path + "/preview?" + q.Encode()
}

func (s *Server) vpNew(k *vpKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		f := newForm()
		f.Values = k.blank()
		return s.showVPForm(w, r, c, k, f, 0)
	}
}

// own loads the path's record if it is the caller's; any other id
// (malformed, unknown, another user's) is the same 404.
func (k *vpKind) own(r *http.Request, c *call) (vpRecord, error) {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return vpRecord{}, errNotFound
	}
	return k.load(r.Context(), c.user.ID, id)
}

func (s *Server) vpEdit(k *vpKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		rec, err := k.own(r, c)
		if err != nil {
			return err
		}
		f := newForm()
		f.Values = rec.Values
		return s.showVPForm(w, r, c, k, f, rec.ID)
	}
}

// vpSave adds or (edit) saves the posted form; "Update preview" (do=preview)
// shows the form again with its preview, saving nothing.
func (s *Server) vpSave(k *vpKind, edit bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		var id int64
		if edit {
			rec, err := k.own(r, c)
			if err != nil {
				return err
			}
			id = rec.ID
		}
		f := readForm(r, slices.Concat(k.fields, []string{"do"})...)
		if f.Val("do") == "preview" {
			return s.showVPForm(w, r, c, k, f, id)
		}
		err := k.save(r.Context(), c.user, id, f)
		if err == nil {
			verb := "added"
			if edit {
				verb = "saved"
			}
			s.setFlash(w, c, flash{Kind: flashOK, Text: sentence(k.Noun) + " “" + strings.TrimSpace(f.Val("name")) + "” " + verb + ". Pick it as a link's redirect type to show it to the link's visitors."})
			http.Redirect(w, r, k.Path, http.StatusSeeOther)
			return nil
		}
		if !f.refuse(err, k.fieldMap()) {
			return err
		}
		if badRequest(err) {
			f.refuseAll(k.check(f), k.fieldMap())
		}
		return s.showVPForm(w, r, c, k, f, id)
	}
}

type vpDeleteData struct {
	Kind       *vpKind
	Record     vpRecord
	PreviewURL string
}

func (s *Server) vpDeletePage(k *vpKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		rec, err := k.own(r, c)
		if err != nil {
			return err
		}
		allowPreviewFrame(w.Header(), c.nonce)
		s.render(w, r, c, http.StatusOK, "vpdelete", "Delete "+k.Noun,
			vpDeleteData{Kind: k, Record: rec, PreviewURL: k.previewURL(&form{Values: rec.Values})})
		return nil
	}
}

func (s *Server) vpDelete(k *vpKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		rec, err := k.own(r, c)
		if err != nil {
			return err
		}
		if err := k.delete(r.Context(), c.user, rec.ID); err != nil {
			return err
		}
		s.setFlash(w, c, flash{Kind: flashOK, Text: sentence(k.Noun) + " “" + rec.Name + "” deleted. Links that showed it now redirect directly."})
		http.Redirect(w, r, k.Path, http.StatusSeeOther)
		return nil
	}
}

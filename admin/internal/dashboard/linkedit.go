package dashboard

import (
	"errors"
	"net/http"

	"kurz/shared/link"
)

// Create, edit and delete of a link. Writes go through the API server
// (AddLink, UpdateLink), so the form is refused exactly where the API
// would be; deletion is the API's DeleteLinks, as DELETE /api/url/:id is.

func (s *Server) newLinkPage(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.showLinkForm(w, r, c, newLinkForm(), &linkRows{lists: map[string][]ruleRow{}}, nil, defaultVisitor, nil)
}

// showLinkForm renders the create form (l nil) or the edit form of l,
// with the preview p when there is one.
func (s *Server) showLinkForm(w http.ResponseWriter, r *http.Request, c *call, f *form, rows *linkRows, l *link.Link, v visitorFacts, p *linkPreview) error {
	d := linkFormData{Form: f, Link: l, Visitor: v, Preview: p, Countries: countryChoices(), Devices: deviceChoices()}
	if err := s.linkChoices(r.Context(), c.user, &d, rows); err != nil {
		return err
	}
	d.Rules, d.Params = rows.views(f)
	if d.Preview == nil {
		d.Preview = s.preview(f, rows, v)
	}
	title := "New link"
	if l != nil {
		title, d.HasPassword = "Edit link", l.PasswordHash != ""
	}
	s.render(w, r, c, f.Status, "linkform", title, d)
	return nil
}

// formAction handles the form's buttons that do not save: adding or
// removing a row, and the preview. It reports whether do was one; the
// form is shown again with everything typed.
func (s *Server) formAction(w http.ResponseWriter, r *http.Request, c *call, f *form, rows *linkRows, l *link.Link) (bool, error) {
	do := f.Val("do")
	if do == "" || do == "save" {
		return false, nil
	}
	if do == "preview" {
		rows.compact()
	} else if !rows.act(do) {
		return false, nil
	}
	v := readVisitor(r)
	return true, s.showLinkForm(w, r, c, f, rows, l, v, nil)
}

func (s *Server) createLink(w http.ResponseWriter, r *http.Request, c *call) error {
	f, rows, _ := linkForm(r)
	if done, err := s.formAction(w, r, c, f, rows, nil); done {
		return err
	}
	rows.compact()
	in := createInput(f, rows)
	apiExpiry(f, in)
	fields := rows.fieldMap()
	if !f.Failed() {
		res, err := s.api.AddLink(r.Context(), c.user, in)
		if err == nil {
			text := "Link created."
			if res.Reused {
				text = "You already had a short link to this address; here it is."
			}
			s.setFlash(w, c, flash{Kind: flashKind(res.Warnings), Text: text, Short: res.Link.ShortURL(s.cfg.BaseURL), Notes: res.Warnings})
			http.Redirect(w, r, "/links", http.StatusSeeOther)
			return nil
		}
		if !f.refuse(err, fields) {
			return err
		}
		if !badRequest(err) {
			return s.showLinkForm(w, r, c, f, rows, nil, readVisitor(r), nil)
		}
	}
	// Mark every wrong field at once, not only the first the API names.
	f.refuseAll(s.api.LinkErrors(r.Context(), c.user, in, true), fields)
	return s.showLinkForm(w, r, c, f, rows, nil, readVisitor(r), nil)
}

// ownLink loads the link of the path's id if it is the caller's; any
// other id (malformed, unknown, another user's) is the same 404.
func (s *Server) ownLink(r *http.Request, c *call) (*link.Link, error) {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return nil, errNotFound
	}
	l, err := s.store.LinkByID(r.Context(), c.user.ID, id)
	if errors.Is(err, link.ErrNotFound) {
		return nil, errNotFound
	}
	return l, err
}

func (s *Server) editLinkPage(w http.ResponseWriter, r *http.Request, c *call) error {
	l, err := s.ownLink(r, c)
	if err != nil {
		return err
	}
	return s.showLinkForm(w, r, c, formOfLink(l), rowsOfLink(l), l, defaultVisitor, nil)
}

func (s *Server) saveLink(w http.ResponseWriter, r *http.Request, c *call) error {
	l, err := s.ownLink(r, c)
	if err != nil {
		return err
	}
	f, rows, removePassword := linkForm(r)
	if done, err := s.formAction(w, r, c, f, rows, l); done {
		return err
	}
	rows.compact()
	in := editInput(f, rows, l, removePassword)
	apiExpiry(f, in)
	fields := rows.fieldMap()
	if !f.Failed() {
		res, err := s.api.UpdateLink(r.Context(), c.user, l.ID, in)
		if err == nil {
			s.setFlash(w, c, flash{Kind: flashKind(res.Warnings), Text: "Changes saved.", Short: res.Link.ShortURL(s.cfg.BaseURL), Notes: res.Warnings})
			http.Redirect(w, r, "/links", http.StatusSeeOther)
			return nil
		}
		if !f.refuse(err, fields) {
			return err
		}
		if !badRequest(err) {
			return s.showLinkForm(w, r, c, f, rows, l, readVisitor(r), nil)
		}
	}
	// Mark every wrong field at once, not only the first the API names.
	f.refuseAll(s.api.LinkErrors(r.Context(), c.user, in, false), fields)
	return s.showLinkForm(w, r, c, f, rows, l, readVisitor(r), nil)
}

func (s *Server) deleteLinkPage(w http.ResponseWriter, r *http.Request, c *call) error {
	l, err := s.ownLink(r, c)
	if err != nil {
		return err
	}
	s.render(w, r, c, http.StatusOK, "linkdelete", "Delete link", s.rowOf(l))
	return nil
}

func (s *Server) deleteLink(w http.ResponseWriter, r *http.Request, c *call) error {
	l, err := s.ownLink(r, c)
	if err != nil {
		return err
	}
	if err := s.api.DeleteLinks(r.Context(), c.user, []int64{l.ID}); errors.Is(err, link.ErrNotFound) {
		return errNotFound // deleted by a concurrent request
	} else if err != nil {
		return err
	}
	s.setFlash(w, c, flash{Kind: flashOK, Text: "Link " + l.ShortURL(s.cfg.BaseURL) + " deleted."})
	http.Redirect(w, r, "/links", http.StatusSeeOther)
	return nil
}

// flashKind is a warning when the write had warnings.
func flashKind(warnings []string) string {
	if len(warnings) > 0 {
		return flashWarn
	}
	return flashOK
}

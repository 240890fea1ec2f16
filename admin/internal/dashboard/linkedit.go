package dashboard

import (
	"errors"
	"net/http"

	"kurz/shared/link"
)

// Create, edit and delete of a link. Writes go through the API server
// (AddLink, UpdateLink), so the form is refused exactly where the API
// would be; deletion is the store's one call, as DELETE /api/url/:id is.

func (s *Server) newLinkPage(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.showLinkForm(w, r, c, newLinkForm(), nil)
}

// showLinkForm renders the create form (l nil) or the edit form of l.
func (s *Server) showLinkForm(w http.ResponseWriter, r *http.Request, c *call, f *form, l *link.Link) error {
	d := linkFormData{Form: f, Link: l}
	var err error
	if d.Domains, d.Types, err = s.linkChoices(r.Context(), c.user, f.Val("type")); err != nil {
		return err
	}
	title := "New link"
	if l != nil {
		title, d.HasPassword = "Edit link", l.PasswordHash != ""
	}
	s.render(w, r, c, f.Status, "linkform", title, d)
	return nil
}

func (s *Server) createLink(w http.ResponseWriter, r *http.Request, c *call) error {
	f, _ := linkForm(r)
	in := createInput(f)
	apiExpiry(f, in)
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
		if !f.refuse(err, linkFieldMap) {
			return err
		}
		if !badRequest(err) {
			return s.showLinkForm(w, r, c, f, nil)
		}
	}
	// Mark every wrong field at once, not only the first the API names.
	f.refuseAll(s.api.LinkErrors(r.Context(), c.user, in, true), linkFieldMap)
	return s.showLinkForm(w, r, c, f, nil)
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
	return s.showLinkForm(w, r, c, formOfLink(l), l)
}

func (s *Server) saveLink(w http.ResponseWriter, r *http.Request, c *call) error {
	l, err := s.ownLink(r, c)
	if err != nil {
		return err
	}
	f, removePassword := linkForm(r)
	in := editInput(f, l, removePassword)
	apiExpiry(f, in)
	if !f.Failed() {
		res, err := s.api.UpdateLink(r.Context(), c.user, l.ID, in)
		if err == nil {
			s.setFlash(w, c, flash{Kind: flashKind(res.Warnings), Text: "Changes saved.", Short: res.Link.ShortURL(s.cfg.BaseURL), Notes: res.Warnings})
			http.Redirect(w, r, "/links", http.StatusSeeOther)
			return nil
		}
		if !f.refuse(err, linkFieldMap) {
			return err
		}
		if !badRequest(err) {
			return s.showLinkForm(w, r, c, f, l)
		}
	}
	// Mark every wrong field at once, not only the first the API names.
	f.refuseAll(s.api.LinkErrors(r.Context(), c.user, in, false), linkFieldMap)
	return s.showLinkForm(w, r, c, f, l)
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
	if err := s.store.DeleteLink(r.Context(), c.user.ID, l.ID); errors.Is(err, link.ErrNotFound) {
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

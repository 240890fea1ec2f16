package api

import (
	"errors"
	"net/http"
	"strings"

	"kurz/shared/link"
)

// Pixels: spec 2.10 and 4.7.

func (s *Server) pixelRoutes() {
	s.handle(s.api, "/api/pixels", Methods{http.MethodGet: s.listPixels})
	s.handle(s.api, "/api/pixel/add", Methods{http.MethodPost: s.addPixel})
	s.handle(s.api, "/api/pixel/{id}/update", Methods{http.MethodPut: s.updatePixel})
	s.handle(s.api, "/api/pixel/{id}/delete", Methods{http.MethodDelete: s.deletePixel})
}

func (s *Server) listPixels(w http.ResponseWriter, r *http.Request, u *link.User) error {
	page, err := ParsePage(r)
	if err != nil {
		return err
	}
	pixels, total, err := s.store.ListPixels(r.Context(), u.ID, page.Limit, page.Offset())
	if err != nil {
		return err
	}
	rows := make([]map[string]any, 0, len(pixels))
	for _, p := range pixels {
		rows = append(rows, map[string]any{
			"id": p.ID, "type": p.Type, "name": p.Name, "tag": p.Tag, "date": link.FormatTime(p.CreatedAt),
		})
	}
	return List(w, page, total, "pixels", rows)
}

type pixelInput struct {
	Type *string `json:"type"`
	Name *string `json:"name"`
	Tag  *string `json:"tag"`
}

func (s *Server) addPixel(w http.ResponseWriter, r *http.Request, u *link.User) error {
	var in pixelInput
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	var rawType string // absent: the error lists the types
	if in.Type != nil {
		rawType = *in.Type
	}
	typ, err := pixelType(rawType)
	if err != nil {
		return err
	}
	if in.Name == nil {
		return BadRequest("name", "required")
	}
	name, err := pixelName(*in.Name)
	if err != nil {
		return err
	}
	if in.Tag == nil {
		return BadRequest("tag", "required")
	}
	if err := link.ValidPixelTag(*in.Tag); err != nil {
		return BadRequest("tag", err.Error())
	}
	p := &link.Pixel{UserID: u.ID, Type: typ, Name: name, Tag: *in.Tag}
	if err := s.store.CreatePixel(r.Context(), p); err != nil {
		return err
	}
	return OK(w, map[string]any{"id": p.ID})
}

// pixelType resolves a written type, a spec name or an alias of the
// original service's identifiers, to the spec name that is stored.
func pixelType(raw string) (string, error) {
	typ, ok := link.PixelType(raw)
	if !ok {
		return "", BadRequest("type", "must be one of "+strings.Join(link.PixelTypes, ", ")+
			" (or an identifier of the original service such as fbpixel or gtmpixel)")
	}
	return typ, nil
}

// pixelName checks a pixel's name: 1–100 characters of plain text.
func pixelName(raw string) (string, error) {
	name := strings.TrimSpace(raw)
	if name == "" {
		return "", BadRequest("name", "required")
	}
	if err := link.ValidText(name, link.MaxPixelName, false); err != nil {
		return "", BadRequest("name", err.Error())
	}
	return name, nil
}

func (s *Server) updatePixel(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return NotFound("pixel")
	}
	var in pixelInput
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	if in.Tag == nil {
		return BadRequest("tag", "required")
	}
	if err := link.ValidPixelTag(*in.Tag); err != nil {
		return BadRequest("tag", err.Error())
	}
	var typ, name *string
	if in.Type != nil {
		t, err := pixelType(*in.Type)
		if err != nil {
			return err
		}
		typ = &t
	}
	if in.Name != nil {
		n, err := pixelName(*in.Name)
		if err != nil {
			return err
		}
		name = &n
	}
	if err := s.store.UpdatePixel(r.Context(), u.ID, id, typ, name, *in.Tag); err != nil {
		if errors.Is(err, link.ErrNotFound) {
			return NotFound("pixel")
		}
		return err
	}
	return Message(w, "pixel updated")
}

func (s *Server) deletePixel(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return NotFound("pixel")
	}
	if err := s.store.DeletePixel(r.Context(), u.ID, id); err != nil {
		if errors.Is(err, link.ErrNotFound) {
			return NotFound("pixel")
		}
		return err
	}
	return Message(w, "pixel deleted")
}

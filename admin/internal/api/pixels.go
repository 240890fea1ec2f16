package api

import (
	"context"
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
	p, err := s.AddPixel(r.Context(), u, &in)
	if err != nil {
		return err
	}
	return OK(w, map[string]any{"id": p.ID})
}

// PixelInput is the body of POST /api/pixel/add and of the update. The
// dashboard's pixel form fills one too, so both go through AddPixel and
// UpdatePixel: one validation, one write path.
type PixelInput = pixelInput

// AddPixel checks in as POST /api/pixel/add does and stores the pixel.
func (s *Server) AddPixel(ctx context.Context, u *link.User, in *PixelInput) (*link.Pixel, error) {
	var rawType string // absent: the error lists the types
	if in.Type != nil {
		rawType = *in.Type
	}
	typ, err := pixelType(rawType)
	if err != nil {
		return nil, err
	}
	if in.Name == nil {
		return nil, BadRequest("name", "required")
	}
	name, err := pixelName(*in.Name)
	if err != nil {
		return nil, err
	}
	if err := pixelTag(in.Tag); err != nil {
		return nil, err
	}
	p := &link.Pixel{UserID: u.ID, Type: typ, Name: name, Tag: *in.Tag}
	if err := s.store.CreatePixel(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

// PixelErrors runs AddPixel's checks field by field, without writing: a
// form marks every wrong field at once (the API answers the first only).
func PixelErrors(in *PixelInput) []error {
	var errs []error
	rawType := ""
	if in.Type != nil {
		rawType = *in.Type
	}
	if _, err := pixelType(rawType); err != nil {
		errs = append(errs, err)
	}
	if in.Name == nil {
		errs = append(errs, BadRequest("name", "required"))
	} else if _, err := pixelName(*in.Name); err != nil {
		errs = append(errs, err)
	}
	if err := pixelTag(in.Tag); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// pixelTag checks a pixel's vendor identifier, required on add and update.
func pixelTag(tag *string) error {
	if tag == nil {
		return BadRequest("tag", "required")
	}
	if err := link.ValidPixelTag(*tag); err != nil {
		return BadRequest("tag", err.Error())
	}
	return nil
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
	if err := s.UpdatePixel(r.Context(), u, id, &in); err != nil {
		return err
	}
	return Message(w, "pixel updated")
}

// UpdatePixel checks in as PUT /api/pixel/:id/update does and changes the
// user's pixel id: the tag always, type and name when given. Another
// user's or an unknown id is a 404 error.
func (s *Server) UpdatePixel(ctx context.Context, u *link.User, id int64, in *PixelInput) error {
	if err := pixelTag(in.Tag); err != nil {
		return err
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
	if err := s.store.UpdatePixel(ctx, u.ID, id, typ, name, *in.Tag); err != nil {
		if errors.Is(err, link.ErrNotFound) {
			return NotFound("pixel")
		}
		return err
	}
	return nil
}

func (s *Server) deletePixel(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return NotFound("pixel")
	}
	if err := s.DeletePixel(r.Context(), u, id); err != nil {
		return err
	}
	return Message(w, "pixel deleted")
}

// DeletePixel deletes the user's pixel id as DELETE /api/pixel/:id does;
// links that used it lose it.
func (s *Server) DeletePixel(ctx context.Context, u *link.User, id int64) error {
	if err := s.store.DeletePixel(ctx, u.ID, id); err != nil {
		if errors.Is(err, link.ErrNotFound) {
			return NotFound("pixel")
		}
		return err
	}
	return nil
}

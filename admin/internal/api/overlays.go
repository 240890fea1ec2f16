package api

import (
	"context"
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

// OverlayInput is the body of POST /api/overlay/add and of the update.
// The dashboard's overlay form fills one too, so both go through
// AddOverlay and UpdateOverlay: one validation, one write path.
type OverlayInput = overlayIn

// apply validates the sent fields and copies them onto o, stopping at the
// first refusal.
func (in *overlayIn) apply(o *link.Overlay) error { return applySteps(o, in.steps()) }

// OverlayDraft applies in to a new overlay field by field, as AddOverlay
// does: the fields that pass are applied, the refusals of the others are
// returned (each naming its field). The dashboard marks every wrong field
// at once (the API answers the first only) and previews the draft.
func OverlayDraft(in *OverlayInput) (link.Overlay, []error) {
	return draft(newOverlay(0), in.Name != nil, in.steps())
}

// newOverlay is an overlay of user with the defaults of an add.
func newOverlay(userID int64) link.Overlay {
	return link.Overlay{UserID: userID, Type: link.OverlayTypes[0], Position: link.DefaultOverlayPosition}
}

// steps are the checks and copies of the sent fields, one per field.
func (in *overlayIn) steps() []func(*link.Overlay) error {
	return []func(*link.Overlay) error{
		func(o *link.Overlay) (err error) {
			if in.Name != nil {
				o.Name, err = checkName(*in.Name)
			}
			return err
		},
		func(o *link.Overlay) error {
			if in.Type != nil {
				if !slices.Contains(link.OverlayTypes, *in.Type) {
					return BadRequest("type", "must be one of: "+strings.Join(link.OverlayTypes, ", "))
				}
				o.Type = *in.Type
			}
			return nil
		},
		func(o *link.Overlay) error {
			return setText(&o.Message, in.Message, "message", link.MaxMessageLen, true)
		},
		func(o *link.Overlay) error {
			return setText(&o.ButtonText, in.ButtonText, "button_text", link.MaxButtonTextLen, false)
		},
		func(o *link.Overlay) (err error) {
			if in.ButtonURL != nil {
				o.ButtonURL, err = optionalURL("button_url", *in.ButtonURL)
			}
			return err
		},
		func(o *link.Overlay) (err error) {
			if in.Background != nil {
				o.Background, err = optionalColor("background", *in.Background)
			}
			return err
		},
		func(o *link.Overlay) (err error) {
			if in.Color != nil {
				o.Color, err = optionalColor("color", *in.Color)
			}
			return err
		},
		func(o *link.Overlay) error {
			if in.Position != nil {
				if !slices.Contains(link.OverlayPositions, *in.Position) {
					return BadRequest("position", "must be one of: "+strings.Join(link.OverlayPositions, ", "))
				}
				o.Position = *in.Position
			}
			return nil
		},
	}
}

// applySteps runs a record's field steps on rec up to the first refusal.
func applySteps[T any](rec *T, steps []func(*T) error) error {
	for _, step := range steps {
		if err := step(rec); err != nil {
			return err
		}
	}
	return nil
}

// draft runs every field step on rec, collecting the refusals; a record
// whose add requires a name and got none is refused on it too.
func draft[T any](rec T, named bool, steps []func(*T) error) (T, []error) {
	var errs []error
	if !named {
		errs = append(errs, BadRequest("name", "required"))
	}
	for _, step := range steps {
		if err := step(&rec); err != nil {
			errs = append(errs, err)
		}
	}
	return rec, errs
}

// setText checks a sent text field and copies it to dst; nil keeps dst.
func setText(dst, sent *string, field string, max int, multiline bool) error {
	if sent == nil {
		return nil
	}
	if err := checkText(field, *sent, max, multiline); err != nil {
		return err
	}
	*dst = *sent
	return nil
}

func (s *Server) addOverlay(w http.ResponseWriter, r *http.Request, u *link.User) error {
	var in overlayIn
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	id, err := s.AddOverlay(r.Context(), u, &in)
	if err != nil {
		return err
	}
	return OK(w, map[string]any{"id": id})
}

// AddOverlay checks in as POST /api/overlay/add does and stores the
// overlay; it returns the new id.
func (s *Server) AddOverlay(ctx context.Context, u *link.User, in *OverlayInput) (int64, error) {
	if in.Name == nil {
		return 0, BadRequest("name", "required")
	}
	o := newOverlay(u.ID)
	if err := in.apply(&o); err != nil {
		return 0, err
	}
	return s.store.CreateOverlay(ctx, o)
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
	if err := s.UpdateOverlay(r.Context(), u, id, &in); err != nil {
		return err
	}
	return Message(w, "overlay updated")
}

// UpdateOverlay checks in as PUT /api/overlay/:id/update does and changes
// the sent fields of the user's overlay id, in one transaction. Another
// user's or an unknown id is a 404 error.
func (s *Server) UpdateOverlay(ctx context.Context, u *link.User, id int64, in *OverlayInput) error {
	err := s.store.UpdateOverlay(ctx, u.ID, id, in.apply)
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("overlay")
	}
	return err
}

func (s *Server) deleteOverlay(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, err := pathInt64(r, "id", "overlay")
	if err != nil {
		return err
	}
	if err := s.DeleteOverlay(r.Context(), u, id); err != nil {
		return err
	}
	return Message(w, "overlay deleted")
}

// DeleteOverlay deletes the user's overlay id as DELETE
// /api/overlay/:id/delete does; links showing it become direct links.
func (s *Server) DeleteOverlay(ctx context.Context, u *link.User, id int64) error {
	err := s.store.DeleteOverlay(ctx, u.ID, id)
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("overlay")
	}
	return err
}

package dashboard

import (
	"context"
	"strings"

	"kurz/admin/internal/api"
	"kurz/shared/link"
	"kurz/shared/visitorpage"
)

// Overlays (call-to-action boxes over the framed destination) as a
// visitor-page kind: written through api.Server.AddOverlay /
// UpdateOverlay / DeleteOverlay, checked field by field with
// api.OverlayDraft, what POST /api/overlay/add and its siblings use.

var overlayFields = []string{"name", "message", "button_text", "button_url", "background", "color", "position"}

// overlayPositionLabels name link.OverlayPositions for people.
var overlayPositionLabels = map[string]string{
	"bottom-left": "Bottom left", "bottom-right": "Bottom right", "top-left": "Top left",
	"top-right": "Top right", "bottom": "Bottom, full width", "top": "Top, full width",
}

func overlayPositions() []choice {
	out := make([]choice, 0, len(link.OverlayPositions))
	for _, p := range link.OverlayPositions {
		out = append(out, choice{Value: p, Label: overlayPositionLabels[p]})
	}
	return out
}

func (s *Server) overlayKind() *vpKind {
	return &vpKind{
		Path: "/overlays", Noun: "overlay", Plural: "Overlays",
		fields: overlayFields,
		blank: func() map[string]string {
			return map[string]string{"background": visitorpage.DefaultOverlayBackground,
				"color": visitorpage.DefaultOverlayColor, "position": link.DefaultOverlayPosition}
		},
		list: func(ctx context.Context, userID int64, limit, offset int) ([]vpRecord, int, error) {
			os, total, err := s.store.ListOverlays(ctx, userID, limit, offset)
			return vpRecords(os, total, err, overlayRecord)
		},
		load: func(ctx context.Context, userID, id int64) (vpRecord, error) {
			o, err := s.store.OverlayByID(ctx, userID, id)
			return overlayRecord(&o), err
		},
		save: func(ctx context.Context, u *link.User, id int64, f *form) error {
			if id == 0 {
				_, err := s.api.AddOverlay(ctx, u, overlayInput(f))
				return err
			}
			return s.api.UpdateOverlay(ctx, u, id, overlayInput(f))
		},
		check: func(f *form) []error {
			_, errs := api.OverlayDraft(overlayInput(f))
			return errs
		},
		delete: s.api.DeleteOverlay,
		page: func(f *form, dest, _ string) visitorpage.Data {
			o, _ := api.OverlayDraft(overlayInput(f))
			return &visitorpage.OverlayPage{Destination: dest, Message: o.Message, ButtonText: o.ButtonText,
				ButtonURL: o.ButtonURL, Background: o.Background, Color: o.Color, Position: o.Position}
		},
	}
}

// overlayRecord is o's row and form values; a colour left to the edge's
// default shows as that default in the colour picker.
func overlayRecord(o *link.Overlay) vpRecord {
	return vpRecord{ID: o.ID, Name: o.Name, Created: o.CreatedAt, Values: map[string]string{
		"name": o.Name, "message": o.Message, "button_text": o.ButtonText, "button_url": o.ButtonURL,
		"background": orDefault(o.Background, visitorpage.DefaultOverlayBackground),
		"color":      orDefault(o.Color, visitorpage.DefaultOverlayColor),
		"position":   o.Position, "position_label": overlayPositionLabels[o.Position],
	}}
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// overlayInput is the API's payload of the form: every field is sent, so
// an emptied one is cleared or refused as the API does, never kept.
func overlayInput(f *form) *api.OverlayInput {
	in := &api.OverlayInput{}
	for _, n := range overlayFields {
		v := f.Val(n)
		if n == "button_url" || n == "background" || n == "color" {
			v = strings.TrimSpace(v)
		}
		*overlayFieldPtr(in, n) = &v
	}
	return in
}

func overlayFieldPtr(in *api.OverlayInput, name string) **string {
	switch name {
	case "name":
		return &in.Name
	case "message":
		return &in.Message
	case "button_text":
		return &in.ButtonText
	case "button_url":
		return &in.ButtonURL
	case "background":
		return &in.Background
	case "color":
		return &in.Color
	}
	return &in.Position
}

package api

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"kurz/shared/link"
)

func (s *Server) channelRoutes() {
	s.handle(s.api, "/api/channels", Methods{http.MethodGet: s.listChannels})
	s.handle(s.api, "/api/channel/add", Methods{http.MethodPost: s.addChannel})
	s.handle(s.api, "/api/channel/{id}", Methods{http.MethodGet: s.channelItems})
	s.handle(s.api, "/api/channel/{channelid}/assign/{type}/{itemid}", Methods{http.MethodPost: s.assignChannel, http.MethodDelete: s.removeFromChannel})
	s.handle(s.api, "/api/channel/{id}/update", Methods{http.MethodPut: s.updateChannel})
	s.handle(s.api, "/api/channel/{id}/delete", Methods{http.MethodDelete: s.deleteChannel})
	// Extension: minimal bio pages, so channel items of type bio exist.
	s.handle(s.api, "/api/bio", Methods{http.MethodGet: s.listBio})
	s.handle(s.api, "/api/bio/add", Methods{http.MethodPost: s.addBio})
}

func channelJSON(c *link.Channel) map[string]any {
	return map[string]any{"id": c.ID, "name": c.Name, "description": c.Description, "color": c.Color, "starred": c.Starred}
}

func (s *Server) listChannels(w http.ResponseWriter, r *http.Request, u *link.User) error {
	p, err := ParsePage(r)
	if err != nil {
		return err
	}
	cs, total, err := s.store.ListChannels(r.Context(), u.ID, p.Limit, p.Offset())
	if err != nil {
		return err
	}
	items := make([]map[string]any, 0, len(cs))
	for i := range cs {
		items = append(items, channelJSON(&cs[i]))
	}
	return List(w, p, total, "channels", items)
}

// itemJSON renders a channel item (spec 2.7).
func (s *Server) itemJSON(it *link.ChannelItem, username string) map[string]any {
	var preview, href string
	switch it.Kind {
	case link.ItemLinks:
		base := it.Domain
		if base == "" {
			base = s.cfg.BaseURL
		}
		preview, href = it.Target, base+"/"+it.Alias
	case link.ItemBio:
		href = link.BioURL(s.cfg.BaseURL, username, it.Alias)
		preview = href
	case link.ItemQR:
		href = s.cfg.BaseURL + "/qr/" + it.Alias
		preview = href
	}
	return map[string]any{
		"type": it.Kind, "id": it.ID, "title": it.Title,
		"preview": preview, "link": href, "date": it.CreatedAt.UTC().Format(link.DateLayout),
	}
}

func (s *Server) channelItems(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, err := pathInt64(r, "id", "channel")
	if err != nil {
		return err
	}
	p, err := ParsePage(r)
	if err != nil {
		return err
	}
	its, total, err := s.store.ChannelItems(r.Context(), u.ID, id, p.Limit, p.Offset())
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("channel")
	}
	if err != nil {
		return err
	}
	items := make([]map[string]any, 0, len(its))
	for i := range its {
		items = append(items, s.itemJSON(&its[i], u.Username))
	}
	return List(w, p, total, "items", items)
}

type channelIn struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
	Color       *string `json:"color"`
	Starred     *bool   `json:"starred"`
}

// apply validates the sent fields and copies them onto c.
func (in *channelIn) apply(c *link.Channel) error {
	var err error
	if in.Name != nil {
		if c.Name, err = checkName(*in.Name); err != nil {
			return err
		}
	}
	if in.Description != nil {
		if err := checkText("description", *in.Description, link.MaxDescriptionLen, true); err != nil {
			return err
		}
		c.Description = *in.Description
	}
	if in.Color != nil {
		if c.Color, err = optionalColor("color", *in.Color); err != nil {
			return err
		}
	}
	if in.Starred != nil {
		c.Starred = *in.Starred
	}
	return nil
}

func (s *Server) addChannel(w http.ResponseWriter, r *http.Request, u *link.User) error {
	var in channelIn
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	c, err := s.AddChannel(r.Context(), u, &in)
	if err != nil {
		return err
	}
	return OK(w, channelJSON(&c))
}

// ChannelInput is the body of POST /api/channel/add and of the update.
// The dashboard's channel form fills one too, so both go through
// AddChannel and UpdateChannel: one validation, one write path.
type ChannelInput = channelIn

// AddChannel checks in as POST /api/channel/add does and stores it.
func (s *Server) AddChannel(ctx context.Context, u *link.User, in *ChannelInput) (link.Channel, error) {
	if in.Name == nil {
		return link.Channel{}, BadRequest("name", "required")
	}
	c := link.Channel{UserID: u.ID}
	if err := in.apply(&c); err != nil {
		return c, err
	}
	return s.store.CreateChannel(ctx, c)
}

// ChannelErrors runs the add's checks field by field, without writing: a
// form marks every wrong field at once (the API answers the first only).
func ChannelErrors(in *ChannelInput) []error {
	var errs []error
	var c link.Channel
	for _, one := range []channelIn{{Name: in.Name}, {Description: in.Description}, {Color: in.Color}} {
		if err := one.apply(&c); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func (s *Server) updateChannel(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, err := pathInt64(r, "id", "channel")
	if err != nil {
		return err
	}
	var in channelIn
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	if err := s.UpdateChannel(r.Context(), u, id, &in); err != nil {
		return err
	}
	return Message(w, "channel updated")
}

// UpdateChannel checks in as PUT /api/channel/:id/update does and changes
// the user's channel id; another user's or an unknown id is a 404.
func (s *Server) UpdateChannel(ctx context.Context, u *link.User, id int64, in *ChannelInput) error {
	err := s.store.UpdateChannel(ctx, u.ID, id, in.apply)
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("channel")
	}
	return err
}

func (s *Server) deleteChannel(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, err := pathInt64(r, "id", "channel")
	if err != nil {
		return err
	}
	if err := s.DeleteChannel(r.Context(), u, id); err != nil {
		return err
	}
	return Message(w, "channel deleted; its items are now unassigned")
}

// DeleteChannel deletes the user's channel id as DELETE
// /api/channel/:id/delete does; its items stay, unassigned.
func (s *Server) DeleteChannel(ctx context.Context, u *link.User, id int64) error {
	err := s.store.DeleteChannel(ctx, u.ID, id)
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("channel")
	}
	return err
}

func (s *Server) assignChannel(w http.ResponseWriter, r *http.Request, u *link.User) error {
	cid, kind, iid, err := channelItemPath(r)
	if err != nil {
		return err
	}
	if err := s.AssignChannel(r.Context(), u, cid, kind, iid); err != nil {
		return err
	}
	return Message(w, itemWhat[kind]+" assigned to channel")
}

// channelItemPath reads /api/channel/{channelid}/assign/{type}/{itemid}.
func channelItemPath(r *http.Request) (channelID int64, kind string, itemID int64, err error) {
	if channelID, err = pathInt64(r, "channelid", "channel"); err != nil {
		return 0, "", 0, err
	}
	kind = r.PathValue("type")
	if !slices.Contains(link.ItemKinds, kind) {
		return 0, "", 0, BadRequest("type", "must be one of: "+strings.Join(link.ItemKinds, ", "))
	}
	if itemID, err = pathInt64(r, "itemid", itemWhat[kind]); err != nil {
		return 0, "", 0, err
	}
	return channelID, kind, itemID, nil
}

// removeFromChannel is an extension: DELETE on the assign address takes
// the item out of the channel (the spec has no call for it).
func (s *Server) removeFromChannel(w http.ResponseWriter, r *http.Request, u *link.User) error {
	cid, kind, iid, err := channelItemPath(r)
	if err != nil {
		return err
	}
	removed, err := s.RemoveFromChannel(r.Context(), u, cid, kind, iid)
	if err != nil {
		return err
	}
	if !removed {
		return Message(w, itemWhat[kind]+" was not in this channel")
	}
	return Message(w, itemWhat[kind]+" removed from channel")
}

// itemWhat names a channel item kind in messages.
var itemWhat = map[string]string{link.ItemLinks: "link", link.ItemBio: "bio page", link.ItemQR: "qr code"}

// AssignChannel puts the user's item (kind one of link.ItemKinds) into the
// user's channel, as POST /api/channel/:id/assign/:type/:itemid does.
func (s *Server) AssignChannel(ctx context.Context, u *link.User, channelID int64, kind string, itemID int64) error {
	if !slices.Contains(link.ItemKinds, kind) {
		return BadRequest("type", "must be one of: "+strings.Join(link.ItemKinds, ", "))
	}
	return storeErr(s.store.AssignToChannel(ctx, u.ID, channelID, kind, itemID))
}

// RemoveFromChannel takes the user's item out of the user's channel, as
// DELETE /api/channel/:id/assign/:type/:itemid does; it reports whether
// the item was in it.
func (s *Server) RemoveFromChannel(ctx context.Context, u *link.User, channelID int64, kind string, itemID int64) (bool, error) {
	if !slices.Contains(link.ItemKinds, kind) {
		return false, BadRequest("type", "must be one of: "+strings.Join(link.ItemKinds, ", "))
	}
	removed, err := s.store.RemoveFromChannel(ctx, u.ID, channelID, kind, itemID)
	return removed, storeErr(err)
}

func (s *Server) listBio(w http.ResponseWriter, r *http.Request, u *link.User) error {
	p, err := ParsePage(r)
	if err != nil {
		return err
	}
	bs, total, err := s.store.ListBioPages(r.Context(), u.ID, p.Limit, p.Offset())
	if err != nil {
		return err
	}
	items := make([]map[string]any, 0, len(bs))
	for _, b := range bs {
		var ch any = false
		if b.ChannelID != nil {
			ch = *b.ChannelID
		}
		items = append(items, map[string]any{
			"id": b.ID, "title": b.Title, "alias": b.Alias, "channel": ch,
			"link": link.BioURL(s.cfg.BaseURL, u.Username, b.Alias), "date": link.FormatTime(b.CreatedAt),
		})
	}
	return List(w, p, total, "bio", items)
}

type bioIn struct {
	Title *string `json:"title"`
	Alias *string `json:"alias"`
}

func (s *Server) addBio(w http.ResponseWriter, r *http.Request, u *link.User) error {
	var in bioIn
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	if in.Alias == nil || *in.Alias == "" {
		return BadRequest("alias", "required")
	}
	if err := link.ValidAlias(*in.Alias); err != nil {
		return BadRequest("alias", err.Error())
	}
	b := link.BioPage{UserID: u.ID, Alias: *in.Alias}
	if in.Title != nil {
		if err := checkText("title", *in.Title, link.MaxTitleLen, false); err != nil {
			return err
		}
		b.Title = *in.Title
	}
	id, err := s.store.CreateBioPage(r.Context(), b)
	if errors.Is(err, link.ErrConflict) {
		return Conflict("alias: you already have a bio page with this alias")
	}
	if err != nil {
		return err
	}
	return OK(w, map[string]any{"id": id})
}

package api

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"kurz/shared/link"
)

func (s *Server) campaignRoutes() {
	s.handle(s.api, "/api/campaigns", Methods{http.MethodGet: s.listCampaigns})
	s.handle(s.api, "/api/campaign/add", Methods{http.MethodPost: s.addCampaign})
	s.handle(s.api, "/api/campaign/{campaignid}/assign/{linkid}", Methods{http.MethodPost: s.assignCampaign, http.MethodDelete: s.removeFromCampaign})
	s.handle(s.api, "/api/campaign/{id}/update", Methods{http.MethodPut: s.updateCampaign})
	s.handle(s.api, "/api/campaign/{id}/delete", Methods{http.MethodDelete: s.deleteCampaign})
}

// rotatorValue is the rotator URL, or false (the spec's boolean) without one.
func (s *Server) rotatorValue(c *link.Campaign) any {
	if c.Slug == "" {
		return false
	}
	return c.RotatorURL(s.cfg.BaseURL)
}

// campaignJSON is the add/update response; the spec carries the name under
// the key domain there.
func (s *Server) campaignJSON(c *link.Campaign, username string) map[string]any {
	return map[string]any{
		"id":      c.ID,
		"domain":  c.Name,
		"public":  c.Public,
		"rotator": s.rotatorValue(c),
		"list":    c.ListURL(s.cfg.BaseURL, username),
	}
}

func (s *Server) listCampaigns(w http.ResponseWriter, r *http.Request, u *link.User) error {
	p, err := ParsePage(r)
	if err != nil {
		return err
	}
	cs, total, err := s.store.ListCampaigns(r.Context(), u.ID, p.Limit, p.Offset())
	if err != nil {
		return err
	}
	items := make([]map[string]any, 0, len(cs))
	for i := range cs {
		row := s.campaignJSON(&cs[i], u.Username)
		// Both keys: the spec's table says name, one of its samples domain.
		row["name"] = cs[i].Name
		items = append(items, row)
	}
	return List(w, p, total, "campaigns", items)
}

type campaignIn struct {
	Name   *string `json:"name"`
	Slug   *string `json:"slug"`
	Public *bool   `json:"public"`
}

// apply validates the sent fields and copies them onto c ("" slug removes
// the rotator).
func (in *campaignIn) apply(c *link.Campaign) error {
	if in.Name != nil {
		n := strings.TrimSpace(*in.Name)
		if err := checkText("name", n, link.MaxNameLen, false); err != nil {
			return err
		}
		c.Name = n
	}
	if in.Slug != nil {
		if *in.Slug != "" {
			if err := link.ValidAlias(*in.Slug); err != nil {
				return BadRequest("slug", err.Error())
			}
		}
		c.Slug = *in.Slug
	}
	if in.Public != nil {
		c.Public = *in.Public
	}
	return nil
}

// slugConflict turns a taken slug into its 409.
func slugConflict(err error, slug *string) error {
	if errors.Is(err, link.ErrConflict) && slug != nil {
		return Conflict("slug: " + *slug + " is already taken; choose another")
	}
	return err
}

func (s *Server) addCampaign(w http.ResponseWriter, r *http.Request, u *link.User) error {
	var in campaignIn
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	c, err := s.AddCampaign(r.Context(), u, &in)
	if err != nil {
		return err
	}
	return OK(w, s.campaignJSON(&c, u.Username))
}

// CampaignInput is the body of POST /api/campaign/add and of the update.
// The dashboard's campaign form fills one too, so both go through
// AddCampaign and UpdateCampaign: one validation, one write path.
type CampaignInput = campaignIn

// AddCampaign checks in as POST /api/campaign/add does and stores the
// campaign; a taken slug is the API's 409.
func (s *Server) AddCampaign(ctx context.Context, u *link.User, in *CampaignInput) (link.Campaign, error) {
	c := link.Campaign{UserID: u.ID}
	if err := in.apply(&c); err != nil {
		return c, err
	}
	c, err := s.store.CreateCampaign(ctx, c)
	if err != nil {
		return c, slugConflict(err, in.Slug)
	}
	return c, nil
}

// CampaignErrors runs the add's checks field by field, without writing:
// a form marks every wrong field at once (the API answers the first only).
func CampaignErrors(in *CampaignInput) []error {
	var errs []error
	var c link.Campaign
	if err := (&campaignIn{Name: in.Name}).apply(&c); err != nil {
		errs = append(errs, err)
	}
	if err := (&campaignIn{Slug: in.Slug}).apply(&c); err != nil {
		errs = append(errs, err)
	}
	return errs
}

func (s *Server) updateCampaign(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, err := pathInt64(r, "id", "campaign")
	if err != nil {
		return err
	}
	var in campaignIn
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	c, err := s.UpdateCampaign(r.Context(), u, id, &in)
	if err != nil {
		return err
	}
	return OK(w, s.campaignJSON(&c, u.Username))
}

// UpdateCampaign checks in as PUT /api/campaign/:id/update does and
// changes the user's campaign id; another user's or an unknown id is 404.
func (s *Server) UpdateCampaign(ctx context.Context, u *link.User, id int64, in *CampaignInput) (link.Campaign, error) {
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
		return link.Campaign{}, BadRequest("name", "required")
	}
	c, err := s.store.UpdateCampaign(ctx, u.ID, id, in.apply)
	if errors.Is(err, link.ErrNotFound) {
		return c, NotFound("campaign")
	}
	if err != nil {
		return c, slugConflict(err, in.Slug)
	}
	return c, nil
}

func (s *Server) deleteCampaign(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, err := pathInt64(r, "id", "campaign")
	if err != nil {
		return err
	}
	if err := s.DeleteCampaign(r.Context(), u, id); err != nil {
		return err
	}
	return Message(w, "campaign deleted; its links are now unassigned")
}

// DeleteCampaign deletes the user's campaign id as DELETE
// /api/campaign/:id does; its links stay, unassigned.
func (s *Server) DeleteCampaign(ctx context.Context, u *link.User, id int64) error {
	err := s.store.DeleteCampaign(ctx, u.ID, id)
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("campaign")
	}
	return err
}

func (s *Server) assignCampaign(w http.ResponseWriter, r *http.Request, u *link.User) error {
	cid, lid, err := campaignLinkPath(r)
	if err != nil {
		return err
	}
	if err := s.AssignCampaign(r.Context(), u, cid, lid); err != nil {
		return err
	}
	return Message(w, "link assigned to campaign")
}

// removeFromCampaign is an extension: DELETE on the assign address takes
// the link out of the campaign.
func (s *Server) removeFromCampaign(w http.ResponseWriter, r *http.Request, u *link.User) error {
	cid, lid, err := campaignLinkPath(r)
	if err != nil {
		return err
	}
	removed, err := s.RemoveFromCampaign(r.Context(), u, cid, lid)
	if err != nil {
		return err
	}
	if !removed {
		return Message(w, "link was not in this campaign")
	}
	return Message(w, "link removed from campaign")
}

// campaignLinkPath reads /api/campaign/{campaignid}/assign/{linkid}.
func campaignLinkPath(r *http.Request) (campaignID, linkID int64, err error) {
	if campaignID, err = pathInt64(r, "campaignid", "campaign"); err != nil {
		return 0, 0, err
	}
	if linkID, err = pathInt64(r, "linkid", "link"); err != nil {
		return 0, 0, err
	}
	return campaignID, linkID, nil
}

// AssignCampaign puts the user's link into the user's campaign, as POST
// /api/campaign/:campaignid/assign/:linkid does.
func (s *Server) AssignCampaign(ctx context.Context, u *link.User, campaignID, linkID int64) error {
	return storeErr(s.store.AssignLinkToCampaign(ctx, u.ID, campaignID, linkID))
}

// RemoveFromCampaign takes the user's link out of the user's campaign, as
// DELETE /api/campaign/:campaignid/assign/:linkid does; it reports
// whether the link was in it.
func (s *Server) RemoveFromCampaign(ctx context.Context, u *link.User, campaignID, linkID int64) (bool, error) {
	removed, err := s.store.RemoveLinkFromCampaign(ctx, u.ID, campaignID, linkID)
	return removed, storeErr(err)
}

package pgstore

import (
	"context"
	"fmt"
	"slices"

	"kurz/shared/link"
)

// The edge's reads of campaigns. Each is bounded whatever the campaign's
// size (link.MaxRotatorLinks, link.MaxCampaignListLinks and
// link.MaxCampaignListBytes), so the edge's cached entry of a campaign of a
// million links is as small as that of one of ten thousand.

// edgeRotatorQuery reads a rotator in one round trip: the campaign's id
// and the keys of its oldest links (a campaign without links gives one
// row of NULLs). Only the campaign owner's links count.
const edgeRotatorQuery = `
SELECT c.id, l.host, l.alias
  FROM campaigns c
  LEFT JOIN LATERAL (SELECT host, alias FROM links
                      WHERE campaign_id = c.id AND user_id = c.user_id
                      ORDER BY id LIMIT $2) l ON true
 WHERE lower(c.slug) = lower($1)`

// EdgeRotatorBySlug loads what the rotator of the campaign whose slug is
// slug (case-insensitive) needs: its id and the (host, alias) of its oldest
// link.MaxRotatorLinks links, in link-id order. An unknown slug is
// link.ErrNotFound.
func (s *Store) EdgeRotatorBySlug(ctx context.Context, slug string) (*link.EdgeRotator, error) {
	what := fmt.Sprintf("edge rotator %q", slug)
	rows, err := s.pool.Query(ctx, edgeRotatorQuery, slug, link.MaxRotatorLinks)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, mapErr(err))
	}
	defer rows.Close()
	var (
		r           *link.EdgeRotator
		host, alias *string
	)
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id, &host, &alias); err != nil {
			return nil, fmt.Errorf("%s: scan: %w", what, err)
		}
		if r == nil {
			r = &link.EdgeRotator{ID: id}
		}
		if alias != nil && !r.Add(*host, *alias) {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, mapErr(err))
	}
	if r == nil {
		return nil, fmt.Errorf("%s: %w", what, link.ErrNotFound)
	}
	r.Seal()
	return r, nil
}

const edgeCampaignColumns = `c.id, c.user_id, c.name, COALESCE(c.slug, ''), u.username, c.public`

// edgeCampaignLinksQuery reads a list page's links newest first, one more
// than shown, to know whether there are more.
const edgeCampaignLinksQuery = `
SELECT l.id, l.host, COALESCE(d.domain, ''), l.alias, l.meta_title, l.description
  FROM links l
  LEFT JOIN domains d ON l.host <> '' AND d.host = l.host
 WHERE l.campaign_id = $1 AND l.user_id = $2 AND l.status = 'public'
 ORDER BY l.id DESC
 LIMIT $3`

// EdgeCampaignOfUser loads the list page of a campaign of username
// (case-insensitive) by rotator slug, or by id when id > 0: the campaign
// and its newest public links, at most link.MaxCampaignListLinks holding at
// most link.MaxCampaignListBytes, oldest first; More tells whether older
// public links were left out.
func (s *Store) EdgeCampaignOfUser(ctx context.Context, username, slug string, id int64) (*link.EdgeCampaign, error) {
	var (
		c   *link.EdgeCampaign
		err error
	)
	if id > 0 {
		c, err = s.edgeCampaign(ctx, `lower(u.username) = lower($1) AND c.id = $2`, username, id)
	} else {
		c, err = s.edgeCampaign(ctx, `lower(u.username) = lower($1) AND lower(c.slug) = lower($2)`, username, slug)
	}
	if err != nil {
		return nil, fmt.Errorf("edge campaign %q/%q/%d: %w", username, slug, id, err)
	}
	return c, nil
}

func (s *Store) edgeCampaign(ctx context.Context, where string, args ...any) (*link.EdgeCampaign, error) {
	var c link.EdgeCampaign
	err := s.pool.QueryRow(ctx, `SELECT `+edgeCampaignColumns+` FROM campaigns c JOIN users u ON u.id = c.user_id WHERE `+where, args...).
		Scan(&c.ID, &c.UserID, &c.Name, &c.Slug, &c.Username, &c.Public)
	if err != nil {
		return nil, mapErr(err)
	}
	if !c.Public {
		return &c, nil // nothing of it is shown
	}
	rows, err := s.pool.Query(ctx, edgeCampaignLinksQuery, c.ID, c.UserID, link.MaxCampaignListLinks+1)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var size int64
	for rows.Next() {
		var l link.EdgeCampaignLink
		if err := rows.Scan(&l.ID, &l.Host, &l.Domain, &l.Alias, &l.Title, &l.Description); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		size += l.Cost()
		if len(c.Links) == link.MaxCampaignListLinks || size > link.MaxCampaignListBytes {
			c.More = true
			break
		}
		c.Links = append(c.Links, l)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	slices.Reverse(c.Links) // read newest first, shown oldest first
	return &c, nil
}

package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"kurz/shared/link"
)

const campaignColumns = `id, user_id, name, coalesce(slug, ''), public, created_at`

func scanCampaign(row pgx.Row) (link.Campaign, error) {
	var c link.Campaign
	err := row.Scan(&c.ID, &c.UserID, &c.Name, &c.Slug, &c.Public, &c.CreatedAt)
	c.CreatedAt = c.CreatedAt.UTC()
	return c, mapErr(err)
}

// nullSlug stores "" (no rotator) as NULL so the unique index ignores it.
func nullSlug(slug string) *string {
	if slug == "" {
		return nil
	}
	return &slug
}

// ListCampaigns returns one page of the user's campaigns, newest first, and
// their total number.
func (s *Store) ListCampaigns(ctx context.Context, userID int64, limit, offset int) ([]link.Campaign, int, error) {
	total, err := s.countOf(ctx, `SELECT count(*) FROM campaigns WHERE user_id = $1`, userID)
	if err != nil {
		return nil, 0, fmt.Errorf("count campaigns of %d: %w", userID, err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+campaignColumns+` FROM campaigns WHERE user_id = $1
		ORDER BY id DESC LIMIT $2 OFFSET $3`, userID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list campaigns of %d: %w", userID, mapErr(err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (link.Campaign, error) { return scanCampaign(r) })
	if err != nil {
		return nil, 0, fmt.Errorf("list campaigns of %d: %w", userID, mapErr(err))
	}
	return out, total, nil
}

// CampaignByID loads one of the user's campaigns.
func (s *Store) CampaignByID(ctx context.Context, userID, id int64) (link.Campaign, error) {
	c, err := scanCampaign(s.pool.QueryRow(ctx, `SELECT `+campaignColumns+` FROM campaigns WHERE id = $1 AND user_id = $2`, id, userID))
	if err != nil {
		return c, fmt.Errorf("campaign %d: %w", id, err)
	}
	return c, nil
}

// CampaignLinks returns a page of the links in one of the user's
// campaigns, newest first, and their number.
func (s *Store) CampaignLinks(ctx context.Context, userID, campaignID int64, limit, offset int) ([]link.Link, int, error) {
	total, err := s.countOf(ctx, `SELECT count(*) FROM links WHERE user_id = $1 AND campaign_id = $2`, userID, campaignID)
	if err != nil {
		return nil, 0, fmt.Errorf("count links of campaign %d: %w", campaignID, err)
	}
	links, err := s.queryLinks(ctx, `SELECT `+linkColumns+` WHERE l.user_id = $1 AND l.campaign_id = $2
		ORDER BY l.created_at DESC, l.id DESC LIMIT $3 OFFSET $4`, userID, campaignID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("links of campaign %d: %w", campaignID, err)
	}
	return links, total, nil
}

// CampaignBySlug loads the campaign with a rotator slug (any user's;
// case-insensitive), for the rotator.
func (s *Store) CampaignBySlug(ctx context.Context, slug string) (link.Campaign, error) {
	c, err := scanCampaign(s.pool.QueryRow(ctx, `SELECT `+campaignColumns+` FROM campaigns WHERE lower(slug) = lower($1)`, slug))
	if err != nil {
		return c, fmt.Errorf("campaign %q: %w", slug, err)
	}
	return c, nil
}

// CreateCampaign inserts c for c.UserID and returns it with id and time
// set. A slug taken by any campaign (case-insensitive) is ErrConflict.
func (s *Store) CreateCampaign(ctx context.Context, c link.Campaign) (link.Campaign, error) {
	out, err := scanCampaign(s.pool.QueryRow(ctx, `INSERT INTO campaigns (user_id, name, slug, public)
		VALUES ($1, $2, $3, $4) RETURNING `+campaignColumns, c.UserID, c.Name, nullSlug(c.Slug), c.Public))
	if err != nil {
		return out, fmt.Errorf("create campaign: %w", err)
	}
	return out, nil
}

// UpdateCampaign loads the user's campaign, lets change modify it and
// stores the result in one transaction, returning the stored record.
func (s *Store) UpdateCampaign(ctx context.Context, userID, id int64, change func(*link.Campaign) error) (link.Campaign, error) {
	var out link.Campaign
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		c, err := scanCampaign(tx.QueryRow(ctx, `SELECT `+campaignColumns+` FROM campaigns WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID))
		if err != nil {
			return err
		}
		if err := change(&c); err != nil {
			return err
		}
		out, err = scanCampaign(tx.QueryRow(ctx, `UPDATE campaigns SET name = $2, slug = $3, public = $4 WHERE id = $1
			RETURNING `+campaignColumns, id, c.Name, nullSlug(c.Slug), c.Public))
		return err
	})
	if err != nil {
		return out, fmt.Errorf("update campaign %d: %w", id, err)
	}
	return out, nil
}

// DeleteCampaign removes one of the user's campaigns; its links become
// unassigned (links.campaign_id is ON DELETE SET NULL).
func (s *Store) DeleteCampaign(ctx context.Context, userID, id int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM campaigns WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return fmt.Errorf("delete campaign %d: %w", id, mapErr(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete campaign %d: %w", id, link.ErrNotFound)
	}
	return nil
}

// AssignLinkToCampaign puts one of the user's links into one of the user's
// campaigns (moving it out of any other). Either missing is a
// *link.NotFoundError naming which.
func (s *Store) AssignLinkToCampaign(ctx context.Context, userID, campaignID, linkID int64) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockOwned(ctx, tx, `SELECT id FROM campaigns WHERE id = $1 AND user_id = $2 FOR KEY SHARE`, campaignID, userID); err != nil {
			return notFoundAs(err, "campaign")
		}
		tag, err := tx.Exec(ctx, `UPDATE links SET campaign_id = $1, updated_at = now() WHERE id = $2 AND user_id = $3`, campaignID, linkID, userID)
		if err != nil {
			return mapErr(err)
		}
		if tag.RowsAffected() == 0 {
			return &link.NotFoundError{What: "link"}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("assign link %d to campaign %d: %w", linkID, campaignID, err)
	}
	return nil
}

var campaignTakeOut = takeOutSQL{
	`SELECT id FROM campaigns WHERE id = $1 AND user_id = $2 FOR KEY SHARE`, "campaign",
	`UPDATE links SET campaign_id = NULL, updated_at = now() WHERE id = $2 AND user_id = $3 AND campaign_id = $1`,
	`SELECT id FROM links WHERE id = $1 AND user_id = $2`, "link"}

// RemoveLinkFromCampaign takes one of the user's links out of one of the
// user's campaigns; see takeOut.
func (s *Store) RemoveLinkFromCampaign(ctx context.Context, userID, campaignID, linkID int64) (bool, error) {
	return s.takeOut(ctx, campaignTakeOut, userID, campaignID, linkID)
}

// notFoundAs names what was missing when err is ErrNotFound.
func notFoundAs(err error, what string) error {
	if errors.Is(err, link.ErrNotFound) {
		return &link.NotFoundError{What: what}
	}
	return err
}

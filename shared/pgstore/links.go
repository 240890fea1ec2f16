package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"kurz/shared/link"
)

// linkColumns selects a whole link; the pixel ids come sorted.
const linkColumns = `l.id, l.user_id, l.host, l.domain_id, coalesce(d.domain, ''), l.alias, l.custom, l.long_url,
	l.type, l.splash_id, l.overlay_id, l.password_hash, l.expires_at, l.meta_title, l.meta_description,
	l.meta_image, l.description, l.status, l.channel_id, l.campaign_id, l.deeplink_ios, l.deeplink_android,
	l.geo_targets, l.device_targets, l.lang_targets, l.parameters,
	ARRAY(SELECT lp.pixel_id FROM link_pixels lp WHERE lp.link_id = l.id ORDER BY lp.pixel_id),
	l.created_at, l.updated_at
	FROM links l LEFT JOIN domains d ON d.id = l.domain_id`

func scanLink(row pgx.Row) (*link.Link, error) {
	var l link.Link
	err := row.Scan(&l.ID, &l.UserID, &l.Host, &l.DomainID, &l.Domain, &l.Alias, &l.Custom, &l.LongURL,
		&l.Type, &l.SplashID, &l.OverlayID, &l.PasswordHash, &l.ExpiresAt, &l.MetaTitle, &l.MetaDescription,
		&l.MetaImage, &l.Description, &l.Status, &l.ChannelID, &l.CampaignID, &l.DeeplinkIOS, &l.DeeplinkAndroid,
		&l.GeoTargets, &l.DeviceTargets, &l.LangTargets, &l.Parameters, &l.PixelIDs,
		&l.CreatedAt, &l.UpdatedAt)
	if err != nil {
		return nil, mapErr(err)
	}
	l.CreatedAt, l.UpdatedAt = l.CreatedAt.UTC(), l.UpdatedAt.UTC()
	if l.ExpiresAt != nil {
		t := l.ExpiresAt.UTC()
		l.ExpiresAt = &t
	}
	fillEmpty(&l)
	return &l, nil
}

// fillEmpty replaces nil lists by empty ones: they are stored as JSON []
// (never null) and rendered as [].
func fillEmpty(l *link.Link) {
	if l.GeoTargets == nil {
		l.GeoTargets = []link.GeoTarget{}
	}
	if l.DeviceTargets == nil {
		l.DeviceTargets = []link.DeviceTarget{}
	}
	if l.LangTargets == nil {
		l.LangTargets = []link.LangTarget{}
	}
	if l.Parameters == nil {
		l.Parameters = []link.Param{}
	}
	if l.PixelIDs == nil {
		l.PixelIDs = []int64{}
	}
}

// CreateLink inserts l (UserID, Host and all settings set; ID, DomainID,
// Domain and CreatedAt are filled in) with its pixels in one transaction.
// References (domain by host, channel, campaign, splash page, overlay,
// pixels) must be the owner's, else a *link.RefError. With nextAlias nil,
// l.Alias is a custom alias and a taken one is link.ErrAliasTaken;
// otherwise nextAlias gives the candidate for each attempt and a taken one
// is simply retried: the unique index decides, so concurrent inserts never
// race.
func (s *Store) CreateLink(ctx context.Context, l *link.Link, nextAlias func(attempt int) string) error {
	fillEmpty(l)
	l.PixelIDs = link.SortedIDs(l.PixelIDs)
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockLinkRefs(ctx, tx, l); err != nil {
			return err
		}
		return insertLinkTx(ctx, tx, l, nextAlias)
	})
	if err != nil {
		return fmt.Errorf("create link of user %d: %w", l.UserID, err)
	}
	return nil
}

// insertLinkTx inserts l and its pixels; see CreateLink for nextAlias.
func insertLinkTx(ctx context.Context, tx pgx.Tx, l *link.Link, nextAlias func(attempt int) string) error {
	if nextAlias == nil {
		ok, err := insertLink(ctx, tx, l)
		if err != nil {
			return err
		}
		if !ok {
			return link.ErrAliasTaken
		}
	} else if err := insertRandom(ctx, tx, l, nextAlias); err != nil {
		return err
	}
	return addPixels(ctx, tx, l.ID, l.PixelIDs)
}

// dedupeLockSpace is the first key of the two-key advisory locks that
// serialise CreateLinkOrReuse per (user, host, long URL). Two-key locks
// never collide with single-key ones such as the migration lock.
const dedupeLockSpace = 0x6b646475 // "kddu"

// plainLinkSQL finds the user's oldest plain link (link.Link.Plain, whose
// rules this WHERE clause repeats) to a long URL on a host. md5(long_url)
// uses the index of migration 0025; long_url = $2 makes a hash collision
// harmless.
const plainLinkSQL = `SELECT ` + linkColumns + `
	WHERE l.user_id = $1 AND md5(l.long_url) = md5($2) AND l.long_url = $2 AND l.host = $3
	AND NOT l.custom AND l.type = 'direct' AND l.splash_id IS NULL AND l.overlay_id IS NULL
	AND l.password_hash = '' AND l.expires_at IS NULL AND l.meta_title = '' AND l.meta_description = ''
	AND l.meta_image = '' AND l.description = '' AND l.status = 'private'
	AND l.channel_id IS NULL AND l.campaign_id IS NULL AND l.deeplink_ios = '' AND l.deeplink_android = ''
	AND l.geo_targets = '[]'::jsonb AND l.device_targets = '[]'::jsonb AND l.lang_targets = '[]'::jsonb
	AND l.parameters = '[]'::jsonb
	AND NOT EXISTS (SELECT 1 FROM link_pixels lp WHERE lp.link_id = l.id)
	ORDER BY l.id LIMIT 1`

// CreateLinkOrReuse is CreateLink for a plain link (l.Plain() must hold):
// when the user already has a plain link to the same long URL on the same
// host, it loads the oldest such link into l instead and reports reused.
// A transaction-scoped advisory lock on (user, host, long URL) serialises
// identical concurrent requests, so they all end up with one link.
func (s *Store) CreateLinkOrReuse(ctx context.Context, l *link.Link, nextAlias func(attempt int) string) (reused bool, err error) {
	fillEmpty(l)
	l.PixelIDs = link.SortedIDs(l.PixelIDs)
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockLinkRefs(ctx, tx, l); err != nil {
			return err
		}
		key := fmt.Sprintf("%d %s %s", l.UserID, l.Host, l.LongURL)
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, int32(dedupeLockSpace), key); err != nil {
			return mapErr(err)
		}
		found, err := scanLink(tx.QueryRow(ctx, plainLinkSQL, l.UserID, l.LongURL, l.Host))
		if err == nil {
			*l, reused = *found, true
			return nil
		}
		if !errors.Is(err, link.ErrNotFound) {
			return err
		}
		return insertLinkTx(ctx, tx, l, nextAlias)
	})
	if err != nil {
		return false, fmt.Errorf("create or reuse link of user %d: %w", l.UserID, err)
	}
	return reused, nil
}

func insertRandom(ctx context.Context, tx pgx.Tx, l *link.Link, nextAlias func(int) string) error {
	for attempt := range link.MaxRandomAliasAttempts {
		l.Alias = nextAlias(attempt)
		ok, err := insertLink(ctx, tx, l)
		if err != nil || ok {
			return err
		}
	}
	return fmt.Errorf("no free random alias after %d attempts", link.MaxRandomAliasAttempts)
}

// insertLink inserts l unless (host, alias) is taken; ON CONFLICT keeps
// the transaction usable for the next attempt.
func insertLink(ctx context.Context, tx pgx.Tx, l *link.Link) (bool, error) {
	err := tx.QueryRow(ctx, `INSERT INTO links (user_id, domain_id, host, alias, custom, long_url, type, splash_id,
		overlay_id, password_hash, expires_at, meta_title, meta_description, meta_image, description, status,
		channel_id, campaign_id, deeplink_ios, deeplink_android, geo_targets, device_targets, lang_targets, parameters)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)
		ON CONFLICT (host, alias) DO NOTHING
		RETURNING id, created_at, updated_at`,
		l.UserID, l.DomainID, l.Host, l.Alias, l.Custom, l.LongURL, l.Type, l.SplashID,
		l.OverlayID, l.PasswordHash, l.ExpiresAt, l.MetaTitle, l.MetaDescription, l.MetaImage, l.Description, l.Status,
		l.ChannelID, l.CampaignID, l.DeeplinkIOS, l.DeeplinkAndroid, l.GeoTargets, l.DeviceTargets, l.LangTargets, l.Parameters,
	).Scan(&l.ID, &l.CreatedAt, &l.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, mapErr(err)
	}
	l.CreatedAt, l.UpdatedAt = l.CreatedAt.UTC(), l.UpdatedAt.UTC()
	return true, nil
}

// lockLinkRefs checks that every record l points to is its owner's and
// takes a KEY SHARE lock on it, so a concurrent delete waits for this
// transaction instead of breaking the foreign key halfway. It resolves
// l.Host to the domain's id and address.
func lockLinkRefs(ctx context.Context, tx pgx.Tx, l *link.Link) error {
	l.DomainID, l.Domain = nil, ""
	if l.Host != "" {
		var id int64
		err := tx.QueryRow(ctx, `SELECT id, domain FROM domains WHERE user_id = $1 AND host = $2 FOR KEY SHARE`,
			l.UserID, l.Host).Scan(&id, &l.Domain)
		if errors.Is(err, pgx.ErrNoRows) {
			return &link.RefError{Field: "domain", Value: l.Host}
		}
		if err != nil {
			return mapErr(err)
		}
		l.DomainID = &id
	}
	refs := []struct {
		field, table string
		id           *int64
	}{
		{"channel", "channels", l.ChannelID},
		{"campaign", "campaigns", l.CampaignID},
		{"type", "splash_pages", l.SplashID},
		{"type", "overlays", l.OverlayID},
	}
	for _, r := range refs {
		if r.id == nil {
			continue
		}
		// table comes from the fixed list above, never from input.
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM `+r.table+` WHERE id = $1 AND user_id = $2 FOR KEY SHARE`, *r.id, l.UserID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return &link.RefError{Field: r.field, ID: *r.id}
		}
		if err != nil {
			return mapErr(err)
		}
	}
	return lockPixels(ctx, tx, l.UserID, l.PixelIDs)
}

func lockPixels(ctx context.Context, tx pgx.Tx, userID int64, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT id FROM pixels WHERE user_id = $1 AND id = ANY($2) FOR KEY SHARE`, userID, ids)
	if err != nil {
		return mapErr(err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return mapErr(err)
	}
	for _, id := range ids {
		if !slices.Contains(found, id) {
			return &link.RefError{Field: "pixels", ID: id}
		}
	}
	return nil
}

func addPixels(ctx context.Context, tx pgx.Tx, linkID int64, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO link_pixels (link_id, pixel_id) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING`, linkID, ids)
	return mapErr(err)
}

// LinkByID loads one of the user's links.
func (s *Store) LinkByID(ctx context.Context, userID, id int64) (*link.Link, error) {
	l, err := scanLink(s.pool.QueryRow(ctx, `SELECT `+linkColumns+` WHERE l.id = $1 AND l.user_id = $2`, id, userID))
	if err != nil {
		return nil, fmt.Errorf("link %d: %w", id, err)
	}
	return l, nil
}

// FindLink finds one of the user's links by alias. With anyHost false it
// looks only on host ("" = the default short domain); with anyHost true it
// looks on every host, preferring the default domain, then the oldest link.
func (s *Store) FindLink(ctx context.Context, userID int64, host, alias string, anyHost bool) (*link.Link, error) {
	l, err := scanLink(s.pool.QueryRow(ctx, `SELECT `+linkColumns+`
		WHERE l.user_id = $1 AND l.alias = $2 AND ($4 OR l.host = $3)
		ORDER BY (l.host = '') DESC, l.id LIMIT 1`, userID, alias, host, anyHost))
	if err != nil {
		return nil, fmt.Errorf("find link %q on %q: %w", alias, host, err)
	}
	return l, nil
}

// listLinksSQL lists a user's links newest first.
const listLinksSQL = `SELECT ` + linkColumns + ` WHERE l.user_id = $1 ORDER BY l.created_at DESC, l.id DESC LIMIT $2 OFFSET $3`

// ListLinks returns a page of the user's links, newest first, or in the
// order of rank when it is not nil, and the user's total.
func (s *Store) ListLinks(ctx context.Context, userID int64, rank *ClickRanking, limit, offset int) ([]link.Link, int, error) {
	// The count and the page are read side by side (as SearchLinks does);
	// the count is one kept row (migration 0052).
	var (
		total int
		out   []link.Link
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		total, err = s.CountLinks(gctx, userID)
		return err
	})
	g.Go(func() (err error) {
		if rank != nil {
			out, _, err = s.rankedPage(gctx, linkFilter{userID: userID}, rank, nil, offset, limit)
		} else {
			out, err = s.queryLinks(gctx, listLinksSQL, userID, limit, offset)
		}
		if err != nil {
			return fmt.Errorf("list links of user %d: %w", userID, err)
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// UpdateLink applies p to one of the user's links in one transaction and
// returns the result. References are checked as in CreateLink; a new
// (host, alias) pair that is taken is link.ErrAliasTaken.
func (s *Store) UpdateLink(ctx context.Context, userID, id int64, p *link.LinkPatch) (*link.Link, error) {
	var out *link.Link
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		l, err := scanLink(tx.QueryRow(ctx, `SELECT `+linkColumns+` WHERE l.id = $1 AND l.user_id = $2 FOR UPDATE OF l`, id, userID))
		if err != nil {
			return err
		}
		oldPixels := l.PixelIDs
		p.Apply(l)
		fillEmpty(l)
		if err := lockLinkRefs(ctx, tx, l); err != nil {
			return err
		}
		err = tx.QueryRow(ctx, `UPDATE links SET domain_id = $3, host = $4, alias = $5, custom = $6, long_url = $7,
			type = $8, splash_id = $9, overlay_id = $10, password_hash = $11, expires_at = $12, meta_title = $13,
			meta_description = $14, meta_image = $15, channel_id = $16, deeplink_ios = $17, deeplink_android = $18,
			geo_targets = $19, device_targets = $20, lang_targets = $21, parameters = $22, campaign_id = $23,
			description = $24, status = $25, updated_at = now()
			WHERE id = $1 AND user_id = $2 RETURNING updated_at`,
			id, userID, l.DomainID, l.Host, l.Alias, l.Custom, l.LongURL,
			l.Type, l.SplashID, l.OverlayID, l.PasswordHash, l.ExpiresAt, l.MetaTitle,
			l.MetaDescription, l.MetaImage, l.ChannelID, l.DeeplinkIOS, l.DeeplinkAndroid,
			l.GeoTargets, l.DeviceTargets, l.LangTargets, l.Parameters, l.CampaignID,
			l.Description, l.Status).Scan(&l.UpdatedAt)
		if IsUniqueViolation(err, "links_host_alias_key") {
			return link.ErrAliasTaken
		}
		if err != nil {
			return mapErr(err)
		}
		l.UpdatedAt = l.UpdatedAt.UTC()
		if !slices.Equal(oldPixels, l.PixelIDs) {
			if _, err := tx.Exec(ctx, `DELETE FROM link_pixels WHERE link_id = $1 AND NOT (pixel_id = ANY($2))`, id, l.PixelIDs); err != nil {
				return mapErr(err)
			}
			if err := addPixels(ctx, tx, id, l.PixelIDs); err != nil {
				return err
			}
		}
		out = l
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("update link %d: %w", id, err)
	}
	return out, nil
}

// DeleteLink deletes one of the user's links (its pixel rows cascade).
func (s *Store) DeleteLink(ctx context.Context, userID, id int64) error {
	return s.DeleteLinks(ctx, userID, []int64{id})
}

// SetFrameRefused records whether a destination of the user's link
// refuses to be framed (the admin's header check). Only a change is
// written, so an unchanged answer sends the edges no change notice.
func (s *Store) SetFrameRefused(ctx context.Context, userID, id int64, refused bool) error {
	_, err := s.pool.Exec(ctx, `UPDATE links SET frame_refused = $3
		WHERE id = $1 AND user_id = $2 AND frame_refused <> $3`, id, userID, refused)
	if err != nil {
		return fmt.Errorf("set frame_refused of link %d: %w", id, mapErr(err))
	}
	return nil
}

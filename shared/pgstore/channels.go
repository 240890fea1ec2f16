package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"kurz/shared/link"
)

const channelColumns = `id, user_id, name, description, color, starred, created_at`

func scanChannel(row pgx.Row) (link.Channel, error) {
	var c link.Channel
	err := row.Scan(&c.ID, &c.UserID, &c.Name, &c.Description, &c.Color, &c.Starred, &c.CreatedAt)
	c.CreatedAt = c.CreatedAt.UTC()
	return c, mapErr(err)
}

// ListChannels returns one page of the user's channels, newest first, and
// their total number.
func (s *Store) ListChannels(ctx context.Context, userID int64, limit, offset int) ([]link.Channel, int, error) {
	total, err := s.countOf(ctx, `SELECT count(*) FROM channels WHERE user_id = $1`, userID)
	if err != nil {
		return nil, 0, fmt.Errorf("count channels of %d: %w", userID, err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+channelColumns+` FROM channels WHERE user_id = $1
		ORDER BY id DESC LIMIT $2 OFFSET $3`, userID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list channels of %d: %w", userID, mapErr(err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (link.Channel, error) { return scanChannel(r) })
	if err != nil {
		return nil, 0, fmt.Errorf("list channels of %d: %w", userID, mapErr(err))
	}
	return out, total, nil
}

// ChannelByID loads one of the user's channels.
func (s *Store) ChannelByID(ctx context.Context, userID, id int64) (link.Channel, error) {
	c, err := scanChannel(s.pool.QueryRow(ctx, `SELECT `+channelColumns+` FROM channels WHERE id = $1 AND user_id = $2`, id, userID))
	if err != nil {
		return c, fmt.Errorf("channel %d: %w", id, err)
	}
	return c, nil
}

// CreateChannel inserts c for c.UserID and returns it with id and time set.
func (s *Store) CreateChannel(ctx context.Context, c link.Channel) (link.Channel, error) {
	out, err := scanChannel(s.pool.QueryRow(ctx, `INSERT INTO channels (user_id, name, description, color, starred)
		VALUES ($1, $2, $3, $4, $5) RETURNING `+channelColumns, c.UserID, c.Name, c.Description, c.Color, c.Starred))
	if err != nil {
		return out, fmt.Errorf("create channel: %w", err)
	}
	return out, nil
}

// UpdateChannel loads the user's channel, lets change modify it and stores
// the result in one transaction.
func (s *Store) UpdateChannel(ctx context.Context, userID, id int64, change func(*link.Channel) error) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		c, err := scanChannel(tx.QueryRow(ctx, `SELECT `+channelColumns+` FROM channels WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID))
		if err != nil {
			return err
		}
		if err := change(&c); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE channels SET name = $2, description = $3, color = $4, starred = $5 WHERE id = $1`,
			id, c.Name, c.Description, c.Color, c.Starred)
		return mapErr(err)
	})
	if err != nil {
		return fmt.Errorf("update channel %d: %w", id, err)
	}
	return nil
}

// DeleteChannel removes one of the user's channels; its links, bio pages
// and QR codes stay and become unassigned (channel_id ON DELETE SET NULL).
func (s *Store) DeleteChannel(ctx context.Context, userID, id int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM channels WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return fmt.Errorf("delete channel %d: %w", id, mapErr(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete channel %d: %w", id, link.ErrNotFound)
	}
	return nil
}

// channelItemsSQL lists a channel's links, bio pages and QR codes as one
// sequence, newest first; $1 channel, $2 user.
const channelItemsSQL = `
	SELECT 'links' AS kind, l.id, CASE WHEN l.meta_title <> '' THEN l.meta_title ELSE l.alias END AS title,
	       l.alias AS alias, l.long_url AS target, coalesce(d.domain, '') AS domain, l.created_at
	  FROM links l LEFT JOIN domains d ON d.id = l.domain_id
	 WHERE l.channel_id = $1 AND l.user_id = $2
	UNION ALL
	SELECT 'bio', b.id, CASE WHEN b.title <> '' THEN b.title ELSE b.alias END, b.alias, '', '', b.created_at
	  FROM bio_pages b WHERE b.channel_id = $1 AND b.user_id = $2
	UNION ALL
	SELECT 'qr', q.id, CASE WHEN q.name <> '' THEN q.name ELSE q.code END, q.code, '', '', q.created_at
	  FROM qr_codes q WHERE q.channel_id = $1 AND q.user_id = $2`

// ChannelItems returns one page of the items of the user's channel, newest
// first across the three kinds, and their total number. A channel that is
// not the user's is ErrNotFound.
func (s *Store) ChannelItems(ctx context.Context, userID, channelID int64, limit, offset int) ([]link.ChannelItem, int, error) {
	var out []link.ChannelItem
	var total int
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockOwned(ctx, tx, `SELECT id FROM channels WHERE id = $1 AND user_id = $2`, channelID, userID); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM (`+channelItemsSQL+`) items`, channelID, userID).Scan(&total); err != nil {
			return mapErr(err)
		}
		rows, err := tx.Query(ctx, `SELECT kind, id, title, alias, target, domain, created_at FROM (`+channelItemsSQL+`) items
			ORDER BY created_at DESC, kind, id DESC LIMIT $3 OFFSET $4`, channelID, userID, limit, offset)
		if err != nil {
			return mapErr(err)
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (link.ChannelItem, error) {
			var it link.ChannelItem
			err := r.Scan(&it.Kind, &it.ID, &it.Title, &it.Alias, &it.Target, &it.Domain, &it.CreatedAt)
			it.CreatedAt = it.CreatedAt.UTC()
			return it, err
		})
		return mapErr(err)
	})
	if err != nil {
		return nil, 0, fmt.Errorf("items of channel %d: %w", channelID, err)
	}
	return out, total, nil
}

// assignSQL sets the channel of one item of each kind; $1 channel, $2 item,
// $3 user. Fixed strings: the kind never reaches the SQL text.
var assignSQL = map[string]struct{ query, what string }{
	link.ItemLinks: {`UPDATE links SET channel_id = $1, updated_at = now() WHERE id = $2 AND user_id = $3`, "link"},
	link.ItemBio:   {`UPDATE bio_pages SET channel_id = $1 WHERE id = $2 AND user_id = $3`, "bio page"},
	link.ItemQR:    {`UPDATE qr_codes SET channel_id = $1, updated_at = now() WHERE id = $2 AND user_id = $3`, "qr code"},
}

// AssignToChannel moves one of the user's items (kind link.ItemLinks,
// ItemBio or ItemQR) into one of the user's channels. A missing channel or
// item is a *link.NotFoundError naming which.
func (s *Store) AssignToChannel(ctx context.Context, userID, channelID int64, kind string, itemID int64) error {
	a, ok := assignSQL[kind]
	if !ok {
		return fmt.Errorf("assign %s %d: unknown item kind", kind, itemID)
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockOwned(ctx, tx, `SELECT id FROM channels WHERE id = $1 AND user_id = $2 FOR KEY SHARE`, channelID, userID); err != nil {
			return notFoundAs(err, "channel")
		}
		tag, err := tx.Exec(ctx, a.query, channelID, itemID, userID)
		if err != nil {
			return mapErr(err)
		}
		if tag.RowsAffected() == 0 {
			return &link.NotFoundError{What: a.what}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("assign %s %d to channel %d: %w", kind, itemID, channelID, err)
	}
	return nil
}

// takeOutSQL takes one item out of a group (a channel or a campaign):
// lock locks the group ($1 group, $2 user), remove clears the item's group
// ($1 group, $2 item, $3 user) and own finds the user's item ($1 item, $2
// user) when it was not in that group. Fixed strings: input never reaches
// the SQL text.
type takeOutSQL struct{ lock, group, remove, own, what string }

const channelLock = `SELECT id FROM channels WHERE id = $1 AND user_id = $2 FOR KEY SHARE`

var removeSQL = map[string]takeOutSQL{
	link.ItemLinks: {channelLock, "channel",
		`UPDATE links SET channel_id = NULL, updated_at = now() WHERE id = $2 AND user_id = $3 AND channel_id = $1`,
		`SELECT id FROM links WHERE id = $1 AND user_id = $2`, "link"},
	link.ItemBio: {channelLock, "channel",
		`UPDATE bio_pages SET channel_id = NULL WHERE id = $2 AND user_id = $3 AND channel_id = $1`,
		`SELECT id FROM bio_pages WHERE id = $1 AND user_id = $2`, "bio page"},
	link.ItemQR: {channelLock, "channel",
		`UPDATE qr_codes SET channel_id = NULL, updated_at = now() WHERE id = $2 AND user_id = $3 AND channel_id = $1`,
		`SELECT id FROM qr_codes WHERE id = $1 AND user_id = $2`, "qr code"},
}

// RemoveFromChannel takes one of the user's items out of one of the user's
// channels; see takeOut.
func (s *Store) RemoveFromChannel(ctx context.Context, userID, channelID int64, kind string, itemID int64) (bool, error) {
	q, ok := removeSQL[kind]
	if !ok {
		return false, fmt.Errorf("remove %s %d: unknown item kind", kind, itemID)
	}
	return s.takeOut(ctx, q, userID, channelID, itemID)
}

// takeOut reports whether the item was in the group: an item of the
// user's that was not is left as it is (in no group or in another), and a
// missing group or item is a *link.NotFoundError naming which.
func (s *Store) takeOut(ctx context.Context, q takeOutSQL, userID, groupID, itemID int64) (bool, error) {
	removed := false
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockOwned(ctx, tx, q.lock, groupID, userID); err != nil {
			return notFoundAs(err, q.group)
		}
		tag, err := tx.Exec(ctx, q.remove, groupID, itemID, userID)
		if err != nil {
			return mapErr(err)
		}
		if removed = tag.RowsAffected() > 0; removed {
			return nil
		}
		return notFoundAs(lockOwned(ctx, tx, q.own, itemID, userID), q.what)
	})
	if err != nil {
		return false, fmt.Errorf("remove %s %d from %s %d: %w", q.what, itemID, q.group, groupID, err)
	}
	return removed, nil
}

const bioColumns = `id, user_id, title, alias, channel_id, created_at`

func scanBio(row pgx.Row) (link.BioPage, error) {
	var b link.BioPage
	err := row.Scan(&b.ID, &b.UserID, &b.Title, &b.Alias, &b.ChannelID, &b.CreatedAt)
	b.CreatedAt = b.CreatedAt.UTC()
	return b, mapErr(err)
}

// ListBioPages returns one page of the user's bio pages, newest first, and
// their total number.
func (s *Store) ListBioPages(ctx context.Context, userID int64, limit, offset int) ([]link.BioPage, int, error) {
	total, err := s.countOf(ctx, `SELECT count(*) FROM bio_pages WHERE user_id = $1`, userID)
	if err != nil {
		return nil, 0, fmt.Errorf("count bio pages of %d: %w", userID, err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+bioColumns+` FROM bio_pages WHERE user_id = $1
		ORDER BY id DESC LIMIT $2 OFFSET $3`, userID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list bio pages of %d: %w", userID, mapErr(err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (link.BioPage, error) { return scanBio(r) })
	if err != nil {
		return nil, 0, fmt.Errorf("list bio pages of %d: %w", userID, mapErr(err))
	}
	return out, total, nil
}

// CreateBioPage inserts b for b.UserID and returns its id. An alias the
// user already has (case-insensitive) is ErrConflict.
func (s *Store) CreateBioPage(ctx context.Context, b link.BioPage) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `INSERT INTO bio_pages (user_id, title, alias) VALUES ($1, $2, $3) RETURNING id`,
		b.UserID, b.Title, b.Alias).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("create bio page %q: %w", b.Alias, mapErr(err))
	}
	return id, nil
}

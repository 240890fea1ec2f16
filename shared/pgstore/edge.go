package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The edge's reads. Each returns everything one edge feature needs in one
// round trip, so a cache miss costs a single query. Content joined from
// another table (splash page, overlay, pixels) is only taken when it belongs
// to the link's owner, so a forged id in a link row cannot show another
// account's content.

// EdgeTarget is one targeting rule: Key is the country code, device name
// or language tag, URL the destination.
type EdgeTarget struct {
	Key string
	URL string
}

// EdgeParam is one query parameter a link appends to its destination.
type EdgeParam struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// EdgePixel is one tracking pixel of a link.
type EdgePixel struct {
	Type string `json:"type"`
	Tag  string `json:"tag"`
}

// EdgeSplash is a custom splash page's content.
type EdgeSplash struct {
	ID      int64
	Title   string
	Message string
	Image   string
	Link    string
	Counter int
}

// EdgeOverlay is a call-to-action overlay's content.
type EdgeOverlay struct {
	ID         int64
	Type       string
	Message    string
	ButtonText string
	ButtonURL  string
	Background string
	Color      string
	Position   string
}

// EdgeLink is a link with everything the edge's rules need.
type EdgeLink struct {
	ID              int64
	UserID          int64
	Host            string // '' = default domain
	Alias           string
	LongURL         string
	Type            string // direct | frame | splash | overlay
	PasswordHash    string
	ExpiresAt       *time.Time
	MetaTitle       string
	MetaDescription string
	MetaImage       string
	DeeplinkIOS     string
	DeeplinkAndroid string
	Geo             []EdgeTarget
	Device          []EdgeTarget
	Language        []EdgeTarget
	Parameters      []EdgeParam
	Pixels          []EdgePixel
	Splash          *EdgeSplash  // nil: none chosen (type splash uses the default page)
	Overlay         *EdgeOverlay // nil: none chosen
	Redirect404     string       // the link's branded domain's redirect404, '' when none
	// Public: status is public, so the link's stats page ({shorturl}+) is
	// served. Status never changes how the link redirects.
	Public bool
	// FrameRefused: a destination of this frame or overlay link refuses to
	// be framed (checked by the admin on write): serve it as a redirect.
	FrameRefused bool
}

// jsonTarget is the stored shape of the three targeting lists; each list
// names its key differently.
type jsonTarget struct {
	Location string `json:"location"`
	Device   string `json:"device"`
	Language string `json:"language"`
	Link     string `json:"link"`
}

func toTargets(in []jsonTarget, key func(jsonTarget) string) []EdgeTarget {
	if len(in) == 0 {
		return nil
	}
	out := make([]EdgeTarget, len(in))
	for i, t := range in {
		out[i] = EdgeTarget{Key: key(t), URL: t.Link}
	}
	return out
}

// edgeLinkColumns is the column list shared by the single-link load and
// the warm-up stream (scanEdgeLink reads it); %s is the pixels column.
const edgeLinkColumns = `
SELECT l.id, l.user_id, l.host, l.alias, l.long_url, l.type, l.password_hash, l.expires_at, l.status = 'public', l.frame_refused,
       l.meta_title, l.meta_description, l.meta_image, l.deeplink_ios, l.deeplink_android,
       l.geo_targets, l.device_targets, l.lang_targets, l.parameters, `

const edgeLinkJoins = `,
       s.id, COALESCE(s.title, ''), COALESCE(s.message, ''), COALESCE(s.image, ''), COALESCE(s.link, ''), COALESCE(s.counter, 0),
       o.id, COALESCE(o.type, ''), COALESCE(o.message, ''), COALESCE(o.button_text, ''), COALESCE(o.button_url, ''),
       COALESCE(o.background, ''), COALESCE(o.color, ''), COALESCE(o.position, ''),
       COALESCE(d.redirect_404, '')
  FROM links l
  LEFT JOIN splash_pages s ON s.id = l.splash_id AND s.user_id = l.user_id
  LEFT JOIN overlays o ON o.id = l.overlay_id AND o.user_id = l.user_id
  LEFT JOIN domains d ON l.host <> '' AND d.host = l.host`

// edgeLinkQuery loads one link; its pixels come from a correlated
// subquery (one index probe).
const edgeLinkQuery = edgeLinkColumns + `
       COALESCE((SELECT jsonb_agg(jsonb_build_object('type', p.type, 'tag', p.tag) ORDER BY p.id)
                   FROM link_pixels lp JOIN pixels p ON p.id = lp.pixel_id
                  WHERE lp.link_id = l.id AND p.user_id = l.user_id), '[]'::jsonb)` + edgeLinkJoins + `
 WHERE l.host = $1 AND l.alias = $2`

// edgeRecentQuery streams the most recently written links first (the
// likeliest to be visited soon after an edge starts). Pixels are
// aggregated once and hash-joined: a correlated subquery per row cost
// ~5 µs × rows.
const edgeRecentQuery = edgeLinkColumns + `
       COALESCE(px.pixels, '[]'::jsonb)` + edgeLinkJoins + `
  LEFT JOIN (SELECT lp.link_id, p.user_id,
                    jsonb_agg(jsonb_build_object('type', p.type, 'tag', p.tag) ORDER BY p.id) AS pixels
               FROM link_pixels lp JOIN pixels p ON p.id = lp.pixel_id
              GROUP BY lp.link_id, p.user_id) px ON px.link_id = l.id AND px.user_id = l.user_id
 ORDER BY l.updated_at DESC, l.id DESC
 LIMIT $1`

// EdgeLinkByAlias loads the link (host, alias); host is ” for the default
// domain. An unknown link is link.ErrNotFound.
func (s *Store) EdgeLinkByAlias(ctx context.Context, host, alias string) (*EdgeLink, error) {
	l, err := scanEdgeLink(s.pool.QueryRow(ctx, edgeLinkQuery, host, alias))
	if err != nil {
		return nil, fmt.Errorf("edge link %q/%q: %w", host, alias, mapErr(err))
	}
	return l, nil
}

// EdgeLinkKey returns the (host, alias) of link id, for invalidations that
// name only the id. An unknown id is link.ErrNotFound.
func (s *Store) EdgeLinkKey(ctx context.Context, id int64) (host, alias string, err error) {
	err = s.pool.QueryRow(ctx, `SELECT host, alias FROM links WHERE id = $1`, id).Scan(&host, &alias)
	if err != nil {
		return "", "", fmt.Errorf("edge link key %d: %w", id, mapErr(err))
	}
	return host, alias, nil
}

// linksUsing holds, per table whose rows links embed, the query for the
// keys of the links using one row (by id).
var linksUsing = map[string]string{
	"pixels":       `SELECT l.host, l.alias FROM link_pixels lp JOIN links l ON l.id = lp.link_id WHERE lp.pixel_id = $1`,
	"overlays":     `SELECT host, alias FROM links WHERE overlay_id = $1`,
	"splash_pages": `SELECT host, alias FROM links WHERE splash_id = $1`,
	"domains":      `SELECT host, alias FROM links WHERE domain_id = $1`,
}

// EdgeLinkKeysUsing calls fn with the (host, alias) of every link that uses
// row id of table (pixels, overlays, splash_pages or domains), streaming.
func (s *Store) EdgeLinkKeysUsing(ctx context.Context, table string, id int64, fn func(host, alias string)) error {
	q, ok := linksUsing[table]
	if !ok {
		return fmt.Errorf("edge links using %s %d: not a table links embed", table, id)
	}
	rows, err := s.pool.Query(ctx, q, id)
	if err != nil {
		return fmt.Errorf("edge links using %s %d: %w", table, id, mapErr(err))
	}
	defer rows.Close()
	var host, alias string
	for rows.Next() {
		if err := rows.Scan(&host, &alias); err != nil {
			return fmt.Errorf("edge links using %s %d: scan: %w", table, id, err)
		}
		fn(host, alias)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("edge links using %s %d: %w", table, id, mapErr(err))
	}
	return nil
}

// EdgeLinksRecent streams up to limit links, most recently updated first,
// to fn in one query (rows are decoded as they arrive, so memory stays
// flat). fn returning false stops the stream early without an error. The
// edge's cache warm-up uses it.
func (s *Store) EdgeLinksRecent(ctx context.Context, limit int, fn func(*EdgeLink) bool) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("edge links: %w", mapErr(err))
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only; nothing to keep
	// The planner's cost estimate for a whole-table read triggers JIT
	// compilation, which took 1.7 s of a 1.8 s query for 100k links here.
	if _, err := tx.Exec(ctx, "SET LOCAL jit = off"); err != nil {
		return fmt.Errorf("edge links: %w", mapErr(err))
	}
	rows, err := tx.Query(ctx, edgeRecentQuery, limit)
	if err != nil {
		return fmt.Errorf("edge links: %w", mapErr(err))
	}
	defer rows.Close()
	for rows.Next() {
		l, err := scanEdgeLink(rows)
		if err != nil {
			return fmt.Errorf("edge links: scan: %w", err)
		}
		if !fn(l) {
			return nil
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("edge links: %w", mapErr(err))
	}
	return nil
}

// scanEdgeLink reads one row of edgeLinkSelect. The JSON columns are read
// as bytes and decoded only when they hold more than an empty array, which
// is most links: that keeps a bulk warm-up at COPY-like speed.
func scanEdgeLink(row pgx.Row) (*EdgeLink, error) {
	var (
		l                              EdgeLink
		geo, dev, lang, params, pixels []byte
		splashID, overID               *int64
		sp                             EdgeSplash
		ov                             EdgeOverlay
	)
	err := row.Scan(
		&l.ID, &l.UserID, &l.Host, &l.Alias, &l.LongURL, &l.Type, &l.PasswordHash, &l.ExpiresAt, &l.Public, &l.FrameRefused,
		&l.MetaTitle, &l.MetaDescription, &l.MetaImage, &l.DeeplinkIOS, &l.DeeplinkAndroid,
		&geo, &dev, &lang, &params, &pixels,
		&splashID, &sp.Title, &sp.Message, &sp.Image, &sp.Link, &sp.Counter,
		&overID, &ov.Type, &ov.Message, &ov.ButtonText, &ov.ButtonURL, &ov.Background, &ov.Color, &ov.Position,
		&l.Redirect404)
	if err != nil {
		return nil, err
	}
	var g, d, lg []jsonTarget
	for _, c := range []struct {
		name string
		raw  []byte
		dst  any
	}{{"geo_targets", geo, &g}, {"device_targets", dev, &d}, {"lang_targets", lang, &lg},
		{"parameters", params, &l.Parameters}, {"pixels", pixels, &l.Pixels}} {
		if err := decodeJSONList(c.raw, c.dst); err != nil {
			return nil, fmt.Errorf("link %d: %s: %w", l.ID, c.name, err)
		}
	}
	l.Geo = toTargets(g, func(t jsonTarget) string { return t.Location })
	l.Device = toTargets(d, func(t jsonTarget) string { return t.Device })
	l.Language = toTargets(lg, func(t jsonTarget) string { return t.Language })
	if splashID != nil {
		sp.ID = *splashID
		l.Splash = &sp
	}
	if overID != nil {
		ov.ID = *overID
		l.Overlay = &ov
	}
	if l.ExpiresAt != nil {
		t := l.ExpiresAt.UTC()
		l.ExpiresAt = &t
	}
	return &l, nil
}

// decodeJSONList unmarshals a jsonb array unless it is empty or null.
func decodeJSONList(raw []byte, dst any) error {
	if len(raw) == 0 || string(raw) == "[]" || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, dst)
}

// EdgeDomain is what the edge needs of a branded domain.
type EdgeDomain struct {
	ID           int64
	Host         string
	RedirectRoot string
	Redirect404  string
}

// EdgeDomains returns every branded domain. The edge holds them all in
// memory: the set is small, and knowing every host up front means a
// request with a made-up Host header never reaches the database.
func (s *Store) EdgeDomains(ctx context.Context) ([]EdgeDomain, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, host, redirect_root, redirect_404 FROM domains ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("edge domains: %w", mapErr(err))
	}
	defer rows.Close()
	var out []EdgeDomain
	for rows.Next() {
		var d EdgeDomain
		if err := rows.Scan(&d.ID, &d.Host, &d.RedirectRoot, &d.Redirect404); err != nil {
			return nil, fmt.Errorf("edge domains: scan: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("edge domains: %w", mapErr(err))
	}
	return out, nil
}

// EdgeCampaignLink is one link of a campaign as the rotator and the list
// page see it.
type EdgeCampaignLink struct {
	ID          int64
	Host        string // '' = default domain
	Domain      string // the branded domain's scheme://host; '' = default domain
	Alias       string
	Title       string // meta title, else ''
	Description string
	// Public links appear on the campaign's list page; private ones are
	// still rotated (status controls listing, never redirects).
	Public bool
}

// EdgeCampaign is a campaign with its links, oldest first.
type EdgeCampaign struct {
	ID       int64
	UserID   int64
	Name     string
	Slug     string
	Username string
	Public   bool
	Links    []EdgeCampaignLink
}

const edgeCampaignColumns = `c.id, c.user_id, c.name, COALESCE(c.slug, ''), u.username, c.public`

func (s *Store) edgeCampaign(ctx context.Context, where string, args ...any) (*EdgeCampaign, error) {
	var c EdgeCampaign
	err := s.pool.QueryRow(ctx, `SELECT `+edgeCampaignColumns+` FROM campaigns c JOIN users u ON u.id = c.user_id WHERE `+where, args...).
		Scan(&c.ID, &c.UserID, &c.Name, &c.Slug, &c.Username, &c.Public)
	if err != nil {
		return nil, mapErr(err)
	}
	rows, err := s.pool.Query(ctx, `SELECT l.id, l.host, COALESCE(d.domain, ''), l.alias, l.meta_title, l.description, l.status = 'public'
		FROM links l LEFT JOIN domains d ON l.host <> '' AND d.host = l.host
		WHERE l.campaign_id = $1 AND l.user_id = $2 ORDER BY l.id`, c.ID, c.UserID)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var l EdgeCampaignLink
		if err := rows.Scan(&l.ID, &l.Host, &l.Domain, &l.Alias, &l.Title, &l.Description, &l.Public); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		c.Links = append(c.Links, l)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	return &c, nil
}

// EdgeCampaignBySlug loads the campaign whose rotator slug is slug
// (case-insensitive) with its links.
func (s *Store) EdgeCampaignBySlug(ctx context.Context, slug string) (*EdgeCampaign, error) {
	c, err := s.edgeCampaign(ctx, `lower(c.slug) = lower($1)`, slug)
	if err != nil {
		return nil, fmt.Errorf("edge campaign %q: %w", slug, err)
	}
	return c, nil
}

// EdgeCampaignOfUser loads a campaign of username (case-insensitive) by
// rotator slug, or by id when id > 0.
func (s *Store) EdgeCampaignOfUser(ctx context.Context, username, slug string, id int64) (*EdgeCampaign, error) {
	var (
		c   *EdgeCampaign
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

// EdgeQR is what the edge needs of a QR code.
type EdgeQR struct {
	ID         int64
	UserID     int64
	Code       string
	Type       string
	Content    string
	TargetURL  string
	Background string
	Foreground string
	Logo       []byte
	UpdatedAt  time.Time
}

// EdgeQRByCode loads a QR code by its public code.
func (s *Store) EdgeQRByCode(ctx context.Context, code string) (*EdgeQR, error) {
	var q EdgeQR
	err := s.pool.QueryRow(ctx, `SELECT id, user_id, code, type, content, target_url, background, foreground, logo, updated_at
		FROM qr_codes WHERE code = $1`, code).
		Scan(&q.ID, &q.UserID, &q.Code, &q.Type, &q.Content, &q.TargetURL, &q.Background, &q.Foreground, &q.Logo, &q.UpdatedAt)
	if err != nil {
		return nil, fmt.Errorf("edge qr %q: %w", code, mapErr(err))
	}
	q.UpdatedAt = q.UpdatedAt.UTC()
	return &q, nil
}

package pgstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"kurz/shared/link"
)

// The edge's reads. Each returns everything one edge feature needs in one
// round trip, so a cache miss costs a single query. Content joined from
// another table (splash page, overlay, pixels) is only taken when it belongs
// to the link's owner, so a forged id in a link row cannot show another
// account's content.

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
func (s *Store) EdgeLinkByAlias(ctx context.Context, host, alias string) (*link.EdgeLink, error) {
	l, err := scanEdgeLink(s.pool.QueryRow(ctx, edgeLinkQuery, host, alias))
	if err != nil {
		return nil, fmt.Errorf("edge link %q/%q: %w", host, alias, mapErr(err))
	}
	return l, nil
}

// EdgeLinkKeys calls fn with the (host, alias) of each of the links ids
// that exists, in one query: invalidations that name links by id (a
// link_pixels notice names every link of one statement).
func (s *Store) EdgeLinkKeys(ctx context.Context, ids []int64, fn func(host, alias string)) error {
	if len(ids) == 0 {
		return nil
	}
	return s.edgeLinkKeys(ctx, fmt.Sprintf("edge link keys of %d links", len(ids)), fn,
		`SELECT host, alias FROM links WHERE id = ANY($1)`, ids)
}

// linksUsing holds, per kind of row links embed, the query for the keys
// of the links using one row (by id).
var linksUsing = map[Object]string{
	ObjectPixel:   `SELECT l.host, l.alias FROM link_pixels lp JOIN links l ON l.id = lp.link_id WHERE lp.pixel_id = $1`,
	ObjectOverlay: `SELECT host, alias FROM links WHERE overlay_id = $1`,
	ObjectSplash:  `SELECT host, alias FROM links WHERE splash_id = $1`,
	ObjectDomain:  `SELECT host, alias FROM links WHERE domain_id = $1`,
}

// EdgeLinkKeysUsing calls fn with the (host, alias) of every link that uses
// row id of obj (a pixel, overlay, splash page or domain), streaming.
func (s *Store) EdgeLinkKeysUsing(ctx context.Context, obj Object, id int64, fn func(host, alias string)) error {
	what := fmt.Sprintf("edge links using %s %d", obj, id)
	q, ok := linksUsing[obj]
	if !ok {
		return fmt.Errorf("%s: not something links embed", what)
	}
	return s.edgeLinkKeys(ctx, what, fn, q, id)
}

func (s *Store) edgeLinkKeys(ctx context.Context, what string, fn func(host, alias string), q string, arg any) error {
	rows, err := s.pool.Query(ctx, q, arg)
	if err != nil {
		return fmt.Errorf("%s: %w", what, mapErr(err))
	}
	defer rows.Close()
	var host, alias string
	for rows.Next() {
		if err := rows.Scan(&host, &alias); err != nil {
			return fmt.Errorf("%s: scan: %w", what, err)
		}
		fn(host, alias)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, mapErr(err))
	}
	return nil
}

// EdgeLinksRecent streams up to limit links, most recently updated first,
// to fn in one query (rows are decoded as they arrive, so memory stays
// flat). fn returning false stops the stream early without an error. The
// edge's cache warm-up uses it.
func (s *Store) EdgeLinksRecent(ctx context.Context, limit int, fn func(*link.EdgeLink) bool) error {
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

// scanEdgeLink reads one row of edgeLinkColumns. The JSON columns are read
// as bytes and decoded only when they hold more than an empty array, which
// is most links: that keeps a bulk warm-up at COPY-like speed.
func scanEdgeLink(row pgx.Row) (*link.EdgeLink, error) {
	var (
		l                              link.EdgeLink
		geo, dev, lang, params, pixels []byte
		splashID, overID               *int64
		sp                             link.EdgeSplash
		ov                             link.EdgeOverlay
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
	var (
		g  []link.GeoTarget
		d  []link.DeviceTarget
		lg []link.LangTarget
	)
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
	l.Geo, l.Device, l.Language = link.GeoRules(g), link.DeviceRules(d), link.LangRules(lg)
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

// EdgeDomains returns every branded domain. The edge holds them all in
// memory: the set is small, and knowing every host up front means a
// request with a made-up Host header never reaches the database.
func (s *Store) EdgeDomains(ctx context.Context) ([]link.EdgeDomain, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, host, redirect_root, redirect_404 FROM domains ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("edge domains: %w", mapErr(err))
	}
	defer rows.Close()
	var out []link.EdgeDomain
	for rows.Next() {
		var d link.EdgeDomain
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

// EdgeQRTargetByCode loads what a scan of the QR code code needs (no
// logo, colours or content).
func (s *Store) EdgeQRTargetByCode(ctx context.Context, code string) (*link.EdgeQRTarget, error) {
	var q link.EdgeQRTarget
	err := s.pool.QueryRow(ctx, `SELECT id, user_id, target_url FROM qr_codes WHERE code = $1`, code).
		Scan(&q.ID, &q.UserID, &q.TargetURL)
	if err != nil {
		return nil, fmt.Errorf("edge qr target %q: %w", code, mapErr(err))
	}
	return &q, nil
}

// EdgeQRByCode loads a QR code by its public code, with everything a
// render needs.
func (s *Store) EdgeQRByCode(ctx context.Context, code string) (*link.EdgeQR, error) {
	var q link.EdgeQR
	err := s.pool.QueryRow(ctx, `SELECT id, user_id, code, type, content, target_url, background, foreground, logo, updated_at
		FROM qr_codes WHERE code = $1`, code).
		Scan(&q.ID, &q.UserID, &q.Code, &q.Type, &q.Content, &q.TargetURL, &q.Background, &q.Foreground, &q.Logo, &q.UpdatedAt)
	if err != nil {
		return nil, fmt.Errorf("edge qr %q: %w", code, mapErr(err))
	}
	q.UpdatedAt = q.UpdatedAt.UTC()
	return &q, nil
}

package server

import (
	"context"
	"time"

	"kurz/edge/internal/listen"
)

var _ listen.Handler = (*Server)(nil)

// Apply drops what a database change makes stale.
//
//   - links: the link's (host, alias) and, on update, its old (host, alias)
//     (which also clears a negative entry when a link is created), plus all
//     campaigns (the link may have joined or left one);
//   - link_pixels: the link, found by id (one query);
//   - domains: reload the domain table; on an edit also drop the domain's
//     links, which embed its redirect404 (a new domain has no links yet,
//     and one with links cannot be deleted);
//   - pixels, overlays, splash_pages: on an edit, drop the links that use
//     the row (one query). A new row is used by no link yet, and deleting
//     one rewrites the links that used it (link_pixels cascade, overlay_id
//     and splash_id set null), which notify themselves. Clearing the whole
//     cache instead would let any user empty every edge's cache by
//     editing their own pixels;
//   - campaigns: all cached campaigns;
//   - qr_codes: that code.
func (s *Server) Apply(ctx context.Context, c listen.Change) {
	switch c.Table {
	case "links":
		s.links.Invalidate(c.Host, c.Alias)
		if c.OldAlias != "" && (c.OldHost != c.Host || c.OldAlias != c.Alias) {
			s.links.Invalidate(c.OldHost, c.OldAlias)
		}
		s.InvalidateCampaigns()
	case "link_pixels":
		s.links.InvalidateID(ctx, c.ID)
	case "domains":
		s.reloadDomains(ctx)
		if c.Op == "UPDATE" {
			s.invalidateUsing(ctx, c.Table, c.ID)
		}
	case "pixels", "overlays", "splash_pages":
		if c.Op == "UPDATE" {
			s.invalidateUsing(ctx, c.Table, c.ID)
		}
	case "campaigns":
		s.InvalidateCampaigns()
	case "qr_codes":
		s.InvalidateQR(c.Code)
	default:
		s.Resync(ctx)
	}
}

// Resync drops every cached object and reloads the domains: changes may
// have been missed while the listener was down.
func (s *Server) Resync(ctx context.Context) {
	s.reloadDomains(ctx)
	s.links.Clear()
	s.InvalidateCampaigns()
	s.InvalidateQRs()
}

// invalidateUsing drops the cached links that use row id of table. When
// the query fails it clears the whole cache: slower, never stale.
func (s *Server) invalidateUsing(ctx context.Context, table string, id int64) {
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := s.cfg.Store.EdgeLinkKeysUsing(c, table, id, func(host, alias string) {
		s.links.Invalidate(host, alias)
	})
	if err != nil {
		s.log.Warn("invalidate links using a changed row; clearing the link cache", "table", table, "id", id, "err", err)
		s.links.Clear()
	}
}

func (s *Server) reloadDomains(ctx context.Context) {
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.domains.Reload(c, s.cfg.Store); err != nil {
		// Keep serving with the previous table; the next resync retries.
		s.log.Warn("reload domains", "err", err)
	}
}

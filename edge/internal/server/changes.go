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
//   - domains: reload the domain table and clear the link cache, because
//     links embed their domain's redirect404;
//   - pixels, overlays, splash_pages: clear the link cache. These edits are
//     rare and any number of links embed them; tracking which would cost
//     memory on every cached link for an event that happens seldom;
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
		s.links.Clear()
	case "pixels", "overlays", "splash_pages":
		s.links.Clear()
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

func (s *Server) reloadDomains(ctx context.Context) {
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.domains.Reload(c, s.cfg.Store); err != nil {
		// Keep serving with the previous table; the next resync retries.
		s.log.Warn("reload domains", "err", err)
	}
}

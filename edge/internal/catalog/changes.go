package catalog

import (
	"context"
	"strings"

	"kurz/shared/pgstore"
)

// Apply drops what a change notice makes stale.
//
//   - a link: its (host, alias) and, on update, its old (host, alias)
//     (which also clears a negative entry when a link is created), plus
//     the campaigns it is in and was in (the notice names both);
//   - the pixel sets of links: those links, found by id (one query for
//     every link one statement changed);
//   - a domain: reload the domain table; on an edit also drop the domain's
//     links, which embed its redirect404 (a new domain has no links yet,
//     and one with links cannot be deleted);
//   - a pixel, overlay or splash page: on an edit, drop the links that use
//     the row (one query). A new row is used by no link yet, and deleting
//     one rewrites the links that used it (link_pixels cascade, overlay_id
//     and splash_id set null), which notify themselves. Clearing the whole
//     cache instead would let any user empty every edge's cache by
//     editing their own pixels;
//   - a campaign: all cached campaigns (its slug may have been free, and
//     cached as unknown);
//   - a QR code: that code.
//
// Links, campaigns and QR codes also update the existence sets
// (existence.go): a new key is added, a deleted or renamed one removed.
//
// A notice not understood resyncs: slower, never stale.
func (c *Catalog) Apply(ctx context.Context, ch pgstore.Change) {
	switch ch.Object {
	case pgstore.ObjectLink:
		c.keys.linkChanged(ch)
		c.links.invalidate(ch.Host, ch.Alias)
		if ch.OldAlias != "" && (ch.OldHost != ch.Host || ch.OldAlias != ch.Alias) {
			c.links.invalidate(ch.OldHost, ch.OldAlias)
		}
		c.linkCampaigns(ch)
	case pgstore.ObjectLinkPixels:
		c.invalidateLinks(ctx, ch.IDs)
	case pgstore.ObjectDomain:
		c.reloadDomains(ctx)
		if ch.Op == pgstore.OpUpdate {
			c.invalidateUsing(ctx, ch.Object, ch.ID)
		}
	case pgstore.ObjectPixel, pgstore.ObjectOverlay, pgstore.ObjectSplash:
		if ch.Op == pgstore.OpUpdate {
			c.invalidateUsing(ctx, ch.Object, ch.ID)
		}
	case pgstore.ObjectCampaign:
		c.keys.campaignChanged(ch)
		c.campaignChanged(ch)
	case pgstore.ObjectQR:
		c.keys.qrChanged(ch)
		c.qrs.drop(ch.Code)
	default:
		c.log.Warn("change notice not understood; resyncing", "payload", ch.Payload)
		c.Resync(ctx)
	}
}

// campaignChanged drops what a campaign write may alter: the entries
// loaded for it (by id) and every key it is reached by, before and after
// the write, so a cached "no such campaign" cannot outlive its creation
// or a new slug. del makes a load of such a key running now lose. A
// notice without the keys (the trigger before 0032) or without its
// owner's name (the owner is being deleted) clears every campaign.
func (c *Catalog) campaignChanged(ch pgstore.Change) {
	if !ch.CampaignKeys || ch.Username == "" {
		c.campaigns.clear()
		return
	}
	c.campaigns.invalidate(ch.ID)
	keys := campaignKeys(ch.ID, ch.Slug, ch.Username)
	if ch.OldSlug != "" && !strings.EqualFold(ch.OldSlug, ch.Slug) {
		keys = append(keys, campaignKeys(ch.ID, ch.OldSlug, ch.Username)...)
	}
	for _, k := range keys {
		c.campaigns.o.del(k)
	}
}

// Resync drops every cached object and reloads the domains: changes may
// have been missed while the listener was down. The existence sets are
// rebuilt in the background (a scan of every key; notices applied
// meanwhile are replayed over it); until then misses ask the database.
func (c *Catalog) Resync(ctx context.Context) {
	c.keys.rebuildAll()
	c.reloadDomains(ctx)
	c.links.clear()
	c.campaigns.clear()
	c.qrs.clear()
}

// Lost: the change listener's session ended, and changes may go unseen
// until the next Resync. The existence sets stop answering "unknown" (a
// link created meanwhile must not answer 404); the caches keep serving
// what they hold, as before a resync.
func (c *Catalog) Lost() { c.keys.lost() }

// linkCampaigns drops the campaigns a link change may alter: the one the
// link is in and the one it left.
func (c *Catalog) linkCampaigns(ch pgstore.Change) {
	if ch.AllCampaigns {
		c.campaigns.clear()
		return
	}
	if ch.CampaignID != 0 {
		c.campaigns.invalidate(ch.CampaignID)
	}
	if ch.OldCampaignID != 0 && ch.OldCampaignID != ch.CampaignID {
		c.campaigns.invalidate(ch.OldCampaignID)
	}
}

// invalidateLinks drops the cached links ids, resolved to their keys in
// one query rather than through an id index in memory: such an index cost
// ~150 bytes per cached link, and pixel edits are rare. When the query
// fails the whole link cache is cleared, so a stale entry never survives.
func (c *Catalog) invalidateLinks(ctx context.Context, ids []int64) {
	if len(ids) == 0 {
		return
	}
	qctx, cancel := context.WithTimeout(ctx, c.cfg.SyncTimeout)
	defer cancel()
	if err := c.src.EdgeLinkKeys(qctx, ids, c.links.invalidate); err != nil {
		c.log.Warn("resolve changed links; clearing the link cache", "links", len(ids), "err", err)
		c.links.clear()
	}
}

// invalidateUsing drops the cached links that use row id of obj. When the
// query fails it clears the whole link cache: slower, never stale.
func (c *Catalog) invalidateUsing(ctx context.Context, obj pgstore.Object, id int64) {
	qctx, cancel := context.WithTimeout(ctx, c.cfg.SyncTimeout)
	defer cancel()
	if err := c.src.EdgeLinkKeysUsing(qctx, obj, id, c.links.invalidate); err != nil {
		c.log.Warn("invalidate links using a changed row; clearing the link cache", "object", obj, "id", id, "err", err)
		c.links.clear()
	}
}

// reloadDomains reloads the domain table; on failure the previous table
// stays (the next resync retries).
func (c *Catalog) reloadDomains(ctx context.Context) {
	qctx, cancel := context.WithTimeout(ctx, c.cfg.SyncTimeout)
	defer cancel()
	if err := c.domains.reload(qctx, c.src); err != nil {
		c.log.Warn("reload domains", "err", err)
	}
}

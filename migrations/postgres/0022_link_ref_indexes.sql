-- Links by the overlay, splash page and branded domain they use. Deleting
-- an overlay or splash page (ON DELETE SET NULL) and checking a domain
-- delete (ON DELETE RESTRICT) look links up by these columns, and so does
-- the edge when an overlay, splash page or domain is edited: it drops just
-- the links that use it (shared/pgstore EdgeLinkKeysUsing). Without them
-- each of those is a scan of every link.
CREATE INDEX links_overlay_idx ON links (overlay_id) WHERE overlay_id IS NOT NULL;
CREATE INDEX links_splash_idx ON links (splash_id) WHERE splash_id IS NOT NULL;
CREATE INDEX links_domain_idx ON links (domain_id) WHERE domain_id IS NOT NULL;

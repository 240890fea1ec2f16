-- What a change costs the edges (issue 14, "Invalidation cost").
--
-- links: the notice names the link's campaign and, on an update, the one
--   it had: {"campaign_id": ..., "old_campaign_id": ...} (0 = none), so an
--   edge drops only the campaigns that contain the link, not every cached
--   campaign on every link write.
-- link_pixels: one notice per statement instead of one per row, naming
--   every link the statement touched: {"t": "link_pixels", "op": ...,
--   "ids": [link ids]}. Deleting a pixel used by many links (the
--   ON DELETE CASCADE is one statement) costs an edge one query for all
--   of them instead of one per link. The ids are split over several
--   notices only past ~7000 bytes (pg_notify's payload limit is 8000),
--   about a thousand links.
--
-- Deploy order: upgrade the edges before running `admin migrate` for this
-- file. New edges read both the old notices and these; an edge still on
-- the old code reads a link_pixels notice without "id" as link 0 and keeps
-- the link's stale pixel set until its next resync.
CREATE OR REPLACE FUNCTION kurz_notify_change() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    payload jsonb;
BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    -- Counter roll-ups (clicks, scans) change nothing the edge serves: stay quiet.
    IF TG_OP = 'UPDATE' AND TG_TABLE_NAME IN ('links', 'qr_codes')
       AND (to_jsonb(OLD) - 'clicks' - 'scans' - 'updated_at') = (to_jsonb(NEW) - 'clicks' - 'scans' - 'updated_at') THEN
        RETURN NULL;
    END IF;
    payload := jsonb_build_object('t', TG_TABLE_NAME, 'op', TG_OP, 'id', r.id);
    IF TG_TABLE_NAME = 'links' THEN
        payload := payload || jsonb_build_object('host', r.host, 'alias', r.alias,
                                                 'campaign_id', COALESCE(r.campaign_id, 0));
        IF TG_OP = 'UPDATE' THEN
            payload := payload || jsonb_build_object('old_host', OLD.host, 'old_alias', OLD.alias,
                                                     'old_campaign_id', COALESCE(OLD.campaign_id, 0));
        END IF;
    ELSIF TG_TABLE_NAME = 'domains' THEN
        payload := payload || jsonb_build_object('host', r.host);
    ELSIF TG_TABLE_NAME = 'qr_codes' THEN
        payload := payload || jsonb_build_object('code', r.code);
    END IF;
    PERFORM pg_notify('kurz_changes', payload::text);
    RETURN NULL;
END;
$$;

-- The statement's rows arrive as the transition table "changed" (INSERT,
-- DELETE; for UPDATE the old rows, with "changed_new" the new ones).
CREATE FUNCTION kurz_notify_link_pixels() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    touched bigint[];
    ids bigint[];
BEGIN
    -- Each branch names only the transition tables its trigger has.
    IF TG_OP = 'UPDATE' THEN
        SELECT array_agg(link_id) INTO touched
          FROM (SELECT link_id FROM changed UNION SELECT link_id FROM changed_new) u;
    ELSE
        SELECT array_agg(DISTINCT link_id) INTO touched FROM changed;
    END IF;
    FOR ids IN
        -- Running size of the ids as jsonb prints them ("123, ").
        WITH sized AS (
            SELECT id, sum(length(id::text) + 2) OVER (ORDER BY id) AS bytes FROM unnest(touched) id
        )
        SELECT array_agg(id ORDER BY id) FROM sized GROUP BY (bytes - 1) / 7000 ORDER BY 1
    LOOP
        PERFORM pg_notify('kurz_changes', jsonb_build_object('t', 'link_pixels', 'op', TG_OP, 'ids', ids)::text);
    END LOOP;
    RETURN NULL;
END;
$$;

DROP TRIGGER link_pixels_notify ON link_pixels;
CREATE TRIGGER link_pixels_notify_insert AFTER INSERT ON link_pixels
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION kurz_notify_link_pixels();
CREATE TRIGGER link_pixels_notify_delete AFTER DELETE ON link_pixels
    REFERENCING OLD TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION kurz_notify_link_pixels();
CREATE TRIGGER link_pixels_notify_update AFTER UPDATE ON link_pixels
    REFERENCING OLD TABLE AS changed NEW TABLE AS changed_new
    FOR EACH STATEMENT EXECUTE FUNCTION kurz_notify_link_pixels();

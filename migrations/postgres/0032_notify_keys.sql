-- Notices an edge can keep its sets of existing keys by (issue 14,
-- "Random-alias floods"): each edge holds the keys of every link, campaign
-- and QR code in memory and answers unknown ones without a query, so a
-- notice must say which keys a write adds and removes, and every notice
-- must arrive.
--
-- Campaign notices name the keys visitors reach a campaign by:
--   {"t": "campaigns", "op": ..., "id": ..., "slug": "" | slug,
--    "username": owner's username ("" when the owner is being deleted),
--    "old_slug": slug before an UPDATE}
-- A campaign's owner never changes. The campaigns trigger gets a function
-- of its own; kurz_notify_change keeps serving the other tables.
--
-- Link and campaign notices also carry "n", a serial number: PostgreSQL
-- delivers only one of several notices with identical payloads sent in
-- one transaction, so renaming a link a -> b, b -> a, a -> b in one
-- transaction would reach the edges as a -> b, b -> a, and their sets
-- would end holding a instead of b (a real link answering 404). With the
-- serial no two notices are identical, and they arrive in order.
--
-- Deploy order: any. Older edges ignore the new keys; a newer edge that
-- gets a campaign notice without them (this file not applied yet) rescans
-- the campaign keys.
CREATE SEQUENCE kurz_notice_serial CYCLE;

CREATE FUNCTION kurz_notify_campaign() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    payload jsonb;
BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    payload := jsonb_build_object('t', TG_TABLE_NAME, 'op', TG_OP, 'id', r.id,
        'n', nextval('kurz_notice_serial'),
        'slug', COALESCE(r.slug, ''),
        -- '' when a deleted user's campaigns are deleted with it (the
        -- user row is gone by then): the edge keeps their list keys until
        -- its next resync (a stale key costs a query; a missing one would
        -- be a wrong 404).
        'username', COALESCE((SELECT username FROM users WHERE id = r.user_id), ''));
    IF TG_OP = 'UPDATE' THEN
        payload := payload || jsonb_build_object('old_slug', COALESCE(OLD.slug, ''));
    END IF;
    PERFORM pg_notify('kurz_changes', payload::text);
    RETURN NULL;
END;
$$;

DROP TRIGGER campaigns_notify ON campaigns;
CREATE TRIGGER campaigns_notify AFTER INSERT OR UPDATE OR DELETE ON campaigns
    FOR EACH ROW EXECUTE FUNCTION kurz_notify_campaign();

-- The function of migration 0030, with the serial in link notices.
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
                                                 'campaign_id', COALESCE(r.campaign_id, 0),
                                                 'n', nextval('kurz_notice_serial'));
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

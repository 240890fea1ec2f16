-- Every change the edge caches is announced on channel kurz_changes, from the
-- database itself, so no write path can forget it. Payload: JSON
--   {"t": table, "op": "INSERT"|"UPDATE"|"DELETE", "id": row id,
--    "host": ..., "alias": ..., "old_host": ..., "old_alias": ...}   (links)
--   {"t": table, "op": ..., "id": ..., "host": ...}                      (domains)
--   {"t": table, "op": ..., "id": ..., "code": ...}                      (qr_codes)
-- Notifications are delivered at COMMIT; a rolled-back write sends none.
CREATE FUNCTION kurz_notify_change() RETURNS trigger
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
    IF TG_TABLE_NAME = 'link_pixels' THEN
        payload := jsonb_build_object('t', TG_TABLE_NAME, 'op', TG_OP, 'id', r.link_id);
    ELSE
        payload := jsonb_build_object('t', TG_TABLE_NAME, 'op', TG_OP, 'id', r.id);
    END IF;
    IF TG_TABLE_NAME = 'links' THEN
        payload := payload || jsonb_build_object('host', r.host, 'alias', r.alias);
        IF TG_OP = 'UPDATE' THEN
            payload := payload || jsonb_build_object('old_host', OLD.host, 'old_alias', OLD.alias);
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

CREATE TRIGGER links_notify AFTER INSERT OR UPDATE OR DELETE ON links
    FOR EACH ROW EXECUTE FUNCTION kurz_notify_change();
CREATE TRIGGER domains_notify AFTER INSERT OR UPDATE OR DELETE ON domains
    FOR EACH ROW EXECUTE FUNCTION kurz_notify_change();
CREATE TRIGGER campaigns_notify AFTER INSERT OR UPDATE OR DELETE ON campaigns
    FOR EACH ROW EXECUTE FUNCTION kurz_notify_change();
CREATE TRIGGER pixels_notify AFTER INSERT OR UPDATE OR DELETE ON pixels
    FOR EACH ROW EXECUTE FUNCTION kurz_notify_change();
CREATE TRIGGER link_pixels_notify AFTER INSERT OR UPDATE OR DELETE ON link_pixels
    FOR EACH ROW EXECUTE FUNCTION kurz_notify_change();
CREATE TRIGGER overlays_notify AFTER INSERT OR UPDATE OR DELETE ON overlays
    FOR EACH ROW EXECUTE FUNCTION kurz_notify_change();
CREATE TRIGGER splash_pages_notify AFTER INSERT OR UPDATE OR DELETE ON splash_pages
    FOR EACH ROW EXECUTE FUNCTION kurz_notify_change();
CREATE TRIGGER qr_codes_notify AFTER INSERT OR UPDATE OR DELETE ON qr_codes
    FOR EACH ROW EXECUTE FUNCTION kurz_notify_change();

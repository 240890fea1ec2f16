-- Click counts live in ClickHouse only (issue 15). The admin no longer
-- copies them into links.clicks and qr_codes.scans: list pages read
-- ClickHouse's click_totals for the rows shown, and order=click ranks by
-- its click_owner_totals. The counters, their index and the triggers'
-- exemption for counter-only transactions (0023) go.
--
-- kurz_notify_change still subtracts 'clicks' and 'scans' from the row
-- images it compares; subtracting a key a jsonb value lacks is a no-op.
ALTER TABLE links DROP COLUMN clicks;
ALTER TABLE qr_codes DROP COLUMN scans;

DROP TRIGGER links_notify ON links;
CREATE TRIGGER links_notify AFTER INSERT OR UPDATE OR DELETE ON links
    FOR EACH ROW EXECUTE FUNCTION kurz_notify_change();
DROP TRIGGER qr_codes_notify ON qr_codes;
CREATE TRIGGER qr_codes_notify AFTER INSERT OR UPDATE OR DELETE ON qr_codes
    FOR EACH ROW EXECUTE FUNCTION kurz_notify_change();

-- The counter roll-up (admin, shared/pgstore/counters.go) rewrites
-- links.clicks and qr_codes.scans of every link clicked since its last
-- step, thousands of rows a second under load. kurz_notify_change (0003)
-- stays quiet for those updates, but only after building two jsonb copies
-- of each wide row to find out: 60% of an update's cost (5000 links:
-- 400-500 ms with the trigger, 170 ms without; the roll-up kept PostgreSQL
-- ~0.4 of a core busy at 26k clicks/s on the bench machine).
--
-- The roll-up marks its transactions with SET LOCAL kurz.counters_only =
-- 'on', and its statements change nothing but the counter column. The
-- WHEN clause skips the trigger for them before any row work; every other
-- write fires it as before (and the function's own check still silences
-- other counter-only updates).
DROP TRIGGER links_notify ON links;
CREATE TRIGGER links_notify AFTER INSERT OR UPDATE OR DELETE ON links
    FOR EACH ROW WHEN (current_setting('kurz.counters_only', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION kurz_notify_change();
DROP TRIGGER qr_codes_notify ON qr_codes;
CREATE TRIGGER qr_codes_notify AFTER INSERT OR UPDATE OR DELETE ON qr_codes
    FOR EACH ROW WHEN (current_setting('kurz.counters_only', true) IS DISTINCT FROM 'on')
    EXECUTE FUNCTION kurz_notify_change();

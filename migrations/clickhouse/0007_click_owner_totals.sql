-- All-time human clicks per (owner, target): what a list ordered by clicks
-- (GET /api/urls?order=click) ranks an owner's links by. Counts of list
-- rows and of single-link responses are not read here: both read
-- click_totals (0002), so they always agree. This table only orders.
--
-- Why it exists: until issue 15 the admin copied every clicked link's
-- total into PostgreSQL (links.clicks) once a second, so the list could
-- ORDER BY an indexed column. That roll-up rewrote a wide, nine-index row
-- per clicked link per second (5-7.5 us of PostgreSQL CPU per click with
-- 10k hot links) and list numbers lagged the link's own numbers. Here
-- ranking costs one small GROUP BY per insert block, and the owner's
-- clicked links are one primary-key range:
--   SELECT target_id, sum(humans) AS n FROM click_owner_totals
--   WHERE kind = 'link' AND owner_id = ? GROUP BY target_id
-- Always sum() with GROUP BY: SummingMergeTree collapses rows only in
-- background merges.
--
-- Existing clicks are backfilled from the raw table before the view
-- exists, guarded so that a re-run (a migrator that died after the
-- backfill) does not count them twice. Clicks inserted between the
-- backfill and the view's creation, or raw partitions dropped for
-- retention, are missing from the ranking only, never from the numbers
-- shown.
CREATE TABLE IF NOT EXISTS click_owner_totals (
    kind Enum8('link' = 1, 'qr' = 2),
    owner_id UInt64,
    target_id UInt64,
    humans UInt64
) ENGINE = SummingMergeTree(humans)
ORDER BY (kind, owner_id, target_id);

INSERT INTO click_owner_totals (kind, owner_id, target_id, humans)
SELECT kind, owner_id, target_id, count()
FROM clicks
WHERE class = 'human' AND (SELECT count() FROM click_owner_totals) = 0
GROUP BY kind, owner_id, target_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_owner_totals_mv TO click_owner_totals AS
SELECT kind, owner_id, target_id, count() AS humans
FROM clicks
WHERE class = 'human'
GROUP BY kind, owner_id, target_id;

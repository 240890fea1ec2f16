-- kurz:hold click_events
-- The daily breakdown in click_breakdown_days, fed by a view that makes
-- three rows per human click in place of 0014's six: its country, its
-- referrer with the referrer's category, and its browser, system and
-- device class together.
--
-- Why: 0014's view, which ARRAY JOINed every human click into six
-- (dimension, value) rows and grouped them, was about half of
-- ClickHouse's work per click (bench ingest with and without it: 2.4-6.6
-- against 5.4-10.4 us per click, a third to three fifths less in every
-- pair). A referrer's category follows from its host, so one (host,
-- category) row counts both; a visitor's browser, system and device come
-- together, so one row counts all three. For links with few clicks per
-- insert the view also writes fewer rows (a busy link's day can have
-- more browser, system and device combinations than the three lists
-- together, but such days are few rows either way). bench ingest against
-- 0014 (45k clicks/s, 5 s inserts), alternated, with three views of one
-- row kind each: 3.73-6.40 against 5.00-9.76 us per click with 10,000
-- uniformly hot links (every pair, median -20%), 3.36-7.73 against
-- 3.69-10.24 with 100,000 Zipf links (6 pairs of 8, median -11%); one
-- view of three rows per click cost the same within the noise (medians
-- 4.9 against 5.0 us uniform, 3.9 against 4.4 us Zipf) and writes one
-- part per insert instead of three. Written to a table per kind they
-- cost 14-36% less again, but reads pay for every table (below;
-- edge/PERFORMANCE.md, eleventh session).
--
-- Why one table for all three kinds (grp tells them apart; a, b, c are
-- the values, '' where a kind has fewer): on 18.16 every table a read adds
-- costs 4-8 ms of its own, even a UNION ALL branch over a few rows; one
-- table keeps a range's breakdown one read. The rows of 0014's table are
-- copied in as they are (one row per dimension: grp is the dimension,
-- a its value), so reads need nothing else; the copy runs while inserts
-- are held (the first line; chstore/hold.go), as 0014's did, and the hold
-- lasts as long as the copy (docs/operations.md, "Upgrading to
-- ClickHouse 0015"). Run again after dying half-way, the file drops
-- whatever it made and copies again: no insert can have reached the new
-- table, as inserts stay held until a run is through. Once recorded it
-- must not run again (by hand): the copy would drop the clicks counted
-- since. click_dims_days stays, frozen, for admins and edges of an
-- earlier version during the rollout.
DROP TABLE IF EXISTS click_events_dims_days_mv;

DROP TABLE IF EXISTS click_events_breakdown_mv;

DROP TABLE IF EXISTS click_breakdown_days;

CREATE TABLE IF NOT EXISTS click_breakdown_days (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    day Date,
    grp Enum8('country' = 1, 'referrer' = 2, 'browser' = 3, 'os' = 4, 'category' = 5, 'device' = 6, 'referrer_category' = 7, 'client' = 8),
    a String,
    b String,
    c String,
    hits UInt64
) ENGINE = SummingMergeTree(hits)
PARTITION BY toYYYYMM(day)
ORDER BY (kind, target_id, day, grp, a, b, c)
SETTINGS index_granularity = 1024;

INSERT INTO click_breakdown_days (kind, target_id, day, grp, a, b, c, hits)
SELECT kind, target_id, day,
    CAST(toString(dim) AS Enum8('country' = 1, 'referrer' = 2, 'browser' = 3, 'os' = 4, 'category' = 5, 'device' = 6, 'referrer_category' = 7, 'client' = 8)) AS grp,
    value AS a, '' AS b, '' AS c, hits
FROM click_dims_days;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_breakdown_mv TO click_breakdown_days AS
SELECT kind, target_id, toDate(ts) AS day, CAST(t.1 AS Enum8('country' = 1, 'referrer' = 2, 'browser' = 3, 'os' = 4, 'category' = 5, 'device' = 6, 'referrer_category' = 7, 'client' = 8)) AS grp,
    t.2 AS a, t.3 AS b, t.4 AS c, count() AS hits
FROM click_events
ARRAY JOIN [
    ('country', country, '', ''),
    ('referrer_category', referrer_host, toString(referrer_category), ''),
    ('client', browser, os, device)
] AS t
WHERE class = 'human'
GROUP BY kind, target_id, day, grp, a, b, c;

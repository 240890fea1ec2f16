-- kurz:hold click_events
-- The daily breakdown of click_events split three ways: countries stay in
-- click_dims_days, referrers go to click_referrers_days (host and
-- category), and browsers, operating systems and device classes to
-- click_clients_days, each fed by a plain GROUP BY over its own columns.
--
-- Why: 0014's view, which ARRAY JOINed every human click into six
-- (dimension, value) rows and grouped them, was half of ClickHouse's work
-- per click (bench ingest with and without it: 2.4-2.6 against 5.4-8 us
-- per click). A referrer's category follows from its host, so a
-- (host, category) row counts both at once; a visitor's browser, system
-- and device come together. Three narrow views write fewer rows than the
-- six dimensions did, and group them without building a row per
-- dimension first. bench ingest, alternated over four rounds against
-- 0014 (45k clicks/s, 5 s inserts): 3.24-6.42 against 5.02-8.13 us per
-- click with 10,000 uniformly hot links, 2.53-7.62 against 4.24-9.42 with
-- 100,000 Zipf links; every pair favoured the split (edge/PERFORMANCE.md,
-- eleventh session).
--
-- The rows counted before stay where they are: click_dims_days keeps every
-- dimension of the clicks counted by 0014's view, and reads add the two
-- new tables to it (chstore/summary.go). Each click is in exactly one of
-- them per dimension, because the views are swapped while inserts are
-- held (the first line; chstore/hold.go). No row is copied, so the hold
-- lasts as long as these statements. Run again after dying half-way, the
-- file makes whatever is missing; no insert reached a half-made state.
-- An admin of an earlier version reads click_dims_days only: until it is
-- replaced, it shows the breakdowns of the clicks counted from here on by
-- country only (docs/operations.md).
CREATE TABLE IF NOT EXISTS click_referrers_days (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    day Date,
    referrer_host String,
    referrer_category Enum8('direct' = 0, 'other' = 1, 'socialnetwork' = 2, 'microblog' = 3, 'searchengine' = 4, 'photosharing' = 5, 'messaging' = 6, 'email' = 7),
    hits UInt64
) ENGINE = SummingMergeTree(hits)
PARTITION BY toYYYYMM(day)
ORDER BY (kind, target_id, day, referrer_host, referrer_category)
SETTINGS index_granularity = 1024;

CREATE TABLE IF NOT EXISTS click_clients_days (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    day Date,
    browser String,
    os String,
    device String,
    hits UInt64
) ENGINE = SummingMergeTree(hits)
PARTITION BY toYYYYMM(day)
ORDER BY (kind, target_id, day, browser, os, device)
SETTINGS index_granularity = 1024;

DROP TABLE IF EXISTS click_events_dims_days_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_countries_days_mv TO click_dims_days AS
SELECT kind, target_id, toDate(ts) AS day,
    CAST('country' AS Enum8('country' = 1, 'referrer' = 2, 'browser' = 3, 'os' = 4, 'category' = 5, 'device' = 6)) AS dim,
    country AS value, count() AS hits
FROM click_events
WHERE class = 'human'
GROUP BY kind, target_id, day, value;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_referrers_days_mv TO click_referrers_days AS
SELECT kind, target_id, toDate(ts) AS day, referrer_host, referrer_category, count() AS hits
FROM click_events
WHERE class = 'human'
GROUP BY kind, target_id, day, referrer_host, referrer_category;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_clients_days_mv TO click_clients_days AS
SELECT kind, target_id, toDate(ts) AS day, browser, os, device, count() AS hits
FROM click_events
WHERE class = 'human'
GROUP BY kind, target_id, day, browser, os, device;

-- Exact human click counts per (dimension, value), all-time and per day,
-- for the top-N lists (topCountries, topReferrers, topBrowsers, topOs) and
-- socialCount. Exact because marketers compare these numbers with their own:
-- topK states (approximate, no counts) were rejected, see 0002.
--
-- dim is one of:
--   country   ISO 3166 alpha-2, '' when unknown
--   referrer  referrer host, lower case, without "www."; '' for direct visits
--   category  referrer category: direct, other, socialnetwork, microblog,
--             searchengine, photosharing, messaging, email
--   browser   e.g. Chrome, Firefox, Safari; Other when not recognised
--   os        e.g. Windows, MacOS, iOS, Android; Other when not recognised
--   device    desktop, mobile, tablet, tv, bot, unknown
--   language  primary subtag of the preferred Accept-Language, '' when none
-- Within one dim the counts add up to the humans of click_totals. Empty
-- values are kept so they do; the API decides how to label or omit them.
--
-- Top 10 countries of a link, all time:
--   SELECT value, sum(hits) AS n FROM click_dims_total
--   WHERE kind = 'link' AND target_id = ? AND dim = 'country' AND value != ''
--   GROUP BY value ORDER BY n DESC, value LIMIT 10
-- The same for a date range reads click_dims_daily with `AND day BETWEEN ? AND ?`.
-- Always sum(hits) with GROUP BY: SummingMergeTree collapses rows only in
-- background merges.
CREATE TABLE IF NOT EXISTS click_dims_total (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    dim String,
    value String,
    hits UInt64
) ENGINE = SummingMergeTree(hits)
ORDER BY (kind, target_id, dim, value);

CREATE TABLE IF NOT EXISTS click_dims_daily (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    day Date,
    dim String,
    value String,
    hits UInt64
) ENGINE = SummingMergeTree(hits)
PARTITION BY toYYYYMM(day)
ORDER BY (kind, target_id, dim, value, day);

CREATE MATERIALIZED VIEW IF NOT EXISTS click_dims_total_mv TO click_dims_total AS
SELECT kind, target_id, d.1 AS dim, d.2 AS value, count() AS hits
FROM clicks
ARRAY JOIN [
    ('country', country),
    ('referrer', referrer_host),
    ('category', toString(referrer_category)),
    ('browser', browser),
    ('os', os),
    ('device', device),
    ('language', language)
] AS d
WHERE class = 'human'
GROUP BY kind, target_id, dim, value;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_dims_daily_mv TO click_dims_daily AS
SELECT kind, target_id, toDate(ts) AS day, d.1 AS dim, d.2 AS value, count() AS hits
FROM clicks
ARRAY JOIN [
    ('country', country),
    ('referrer', referrer_host),
    ('category', toString(referrer_category)),
    ('browser', browser),
    ('os', os),
    ('device', device),
    ('language', language)
] AS d
WHERE class = 'human'
GROUP BY kind, target_id, day, dim, value;

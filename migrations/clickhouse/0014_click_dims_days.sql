-- kurz:hold click_events clicks
-- The daily breakdown with its dimension as an Enum8: click_dims_days in
-- place of click_dims_daily (0011).
--
-- Each insert's GROUP BY leaves 1.3-1.9 breakdown rows per click, sorted
-- and merged by two strings; the daily breakdown was a third to two fifths
-- of ClickHouse's work per click (edge/PERFORMANCE.md, eighth session).
-- With the dimension an Enum8 the view and its merges cost a fifth to a
-- third less (bench ingest, alternated). Reads compare the dimension with
-- the same names as before; they read toString(dim) where a String column
-- meets it in a UNION ALL.
--
-- A table cannot change its sorting key's type in place, so the rows are
-- copied while inserts are held (the first line; chstore/hold.go): the old
-- view is dropped, the new table filled from the old one, then its view
-- created. The hold lasts as long as the copy, which grows with the
-- table (docs/operations.md, "Upgrading to ClickHouse 0014"). Run again
-- after dying half-way, the file drops the half-filled table first: no
-- insert can have reached it, as they stay held until a run is through.
-- Once recorded it must not run again (by hand): the copy would drop the
-- clicks counted since.
-- click_dims_daily stays, frozen, for admins of an earlier version during
-- the rollout; a later file can drop it.
DROP TABLE IF EXISTS click_events_dims_daily_mv;

DROP TABLE IF EXISTS click_events_dims_days_mv;

DROP TABLE IF EXISTS click_dims_days;

CREATE TABLE IF NOT EXISTS click_dims_days (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    day Date,
    dim Enum8('country' = 1, 'referrer' = 2, 'browser' = 3, 'os' = 4, 'category' = 5, 'device' = 6),
    value String,
    hits UInt64
) ENGINE = SummingMergeTree(hits)
PARTITION BY toYYYYMM(day)
ORDER BY (kind, target_id, day, dim, value)
SETTINGS index_granularity = 1024;

INSERT INTO click_dims_days (kind, target_id, day, dim, value, hits)
SELECT kind, target_id, day,
    CAST(dim AS Enum8('country' = 1, 'referrer' = 2, 'browser' = 3, 'os' = 4, 'category' = 5, 'device' = 6)) AS dim,
    value, hits
FROM click_dims_daily;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_dims_days_mv TO click_dims_days AS
SELECT kind, target_id, toDate(ts) AS day,
    CAST(d.1 AS Enum8('country' = 1, 'referrer' = 2, 'browser' = 3, 'os' = 4, 'category' = 5, 'device' = 6)) AS dim,
    d.2 AS value, count() AS hits
FROM click_events
ARRAY JOIN [
    ('country', country),
    ('referrer', referrer_host),
    ('browser', browser),
    ('os', os),
    ('category', toString(referrer_category)),
    ('device', device)
] AS d
WHERE class = 'human'
GROUP BY kind, target_id, day, dim, value;

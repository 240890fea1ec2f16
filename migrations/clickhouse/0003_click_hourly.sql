-- Per-hour counters per link and QR code for charts (the stats extension's
-- interval=hour|day buckets). Same columns and semantics as click_totals
-- (0002); a day is the merge of its 24 hours:
--   SELECT toDate(hour) AS day, countIfMerge(humans) AS clicks,
--          uniqIfMerge(visitors) AS unique_clicks
--   FROM click_hourly
--   WHERE kind = 'link' AND target_id = ? AND hour >= ? AND hour < ?
--   GROUP BY day ORDER BY day
-- (unique clicks of a day or a range = distinct visitors within it; merging
-- the states of a range counts a visitor once across its hours).
-- Partitioned by month like the raw table, so old months can be dropped.
CREATE TABLE IF NOT EXISTS click_hourly (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    hour DateTime('UTC'),
    humans AggregateFunction(countIf, UInt8),
    bots AggregateFunction(countIf, UInt8),
    previews AggregateFunction(countIf, UInt8),
    prefetches AggregateFunction(countIf, UInt8),
    visitors AggregateFunction(uniqIf, UInt64, UInt8)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (kind, target_id, hour);

CREATE MATERIALIZED VIEW IF NOT EXISTS click_hourly_mv TO click_hourly AS
SELECT
    kind,
    target_id,
    toStartOfHour(ts) AS hour,
    countIfState(class = 'human') AS humans,
    countIfState(class = 'bot') AS bots,
    countIfState(class = 'preview') AS previews,
    countIfState(class = 'prefetch') AS prefetches,
    uniqIfState(visitor, class = 'human') AS visitors
FROM clicks
GROUP BY kind, target_id, hour;

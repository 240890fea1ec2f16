-- All-time counters per link and per QR code, so that a link's headline
-- numbers cost the same at 10 clicks and at 100 million: after background
-- merges each (kind, target_id) is one row, and reading it merges at most a
-- handful of unmerged parts.
--
-- Design of the aggregate tables (0002-0004), and why:
--   * Everything is keyed by (kind, target_id) like the raw table: kind
--     'link' rows are visits of a short link, kind 'qr' rows are scans of a
--     QR code (/q/{code}). A QR scan is NOT also counted as a click of the
--     link it points to, unless the visitor's redirect passes through the
--     short link and the edge records that visit as well.
--   * Counts are exact: countIf states (and SummingMergeTree sums in 0004)
--     are integers, never sampled.
--   * uniqueClicks = uniqIf(visitor) over humans: all-time distinct visitor
--     ids, where a visitor id is a keyed hash of client IP + User-Agent.
--     uniq is exact while a link has fewer than 65536 distinct visitors
--     (modulo 32-bit hash collisions, about 1 in 10^4 at 1000 visitors) and
--     an adaptive sample (error about 1%) above; its state is bounded
--     (<= 256 KiB), which keeps merges and reads constant-cost. uniqExact
--     would grow without bound per hot link and slow down every merge.
--   * Top-N lists are NOT topK states: topK is approximate and returns no
--     counts. Instead 0004 keeps exact counts per (dimension, value) in
--     SummingMergeTree tables; a top-10 is an ORDER BY ... LIMIT 10 over the
--     few thousand values of one link.
--   * clicks, uniqueClicks and every top-N count humans only; bots,
--     previews and prefetches are counted apart (botClicks, previewClicks).
--   * An MV only sees rows inserted after it exists: create aggregates before
--     the first insert (migrations run at start-up, before the pipeline).
--
-- Reading (one link, all time):
--   SELECT countIfMerge(humans) AS clicks, uniqIfMerge(visitors) AS unique_clicks,
--          countIfMerge(bots) AS bot_clicks, countIfMerge(previews) AS preview_clicks,
--          countIfMerge(prefetches) AS prefetch_clicks
--   FROM click_totals WHERE kind = 'link' AND target_id = ?
-- Many links at once (list pages): add `AND target_id IN ?` with a
-- clickhouse.GroupSet and GROUP BY target_id.
CREATE TABLE IF NOT EXISTS click_totals (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    humans AggregateFunction(countIf, UInt8),
    bots AggregateFunction(countIf, UInt8),
    previews AggregateFunction(countIf, UInt8),
    prefetches AggregateFunction(countIf, UInt8),
    visitors AggregateFunction(uniqIf, UInt64, UInt8)
) ENGINE = AggregatingMergeTree
ORDER BY (kind, target_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS click_totals_mv TO click_totals AS
SELECT
    kind,
    target_id,
    countIfState(class = 'human') AS humans,
    countIfState(class = 'bot') AS bots,
    countIfState(class = 'preview') AS previews,
    countIfState(class = 'prefetch') AS prefetches,
    uniqIfState(visitor, class = 'human') AS visitors
FROM clicks
GROUP BY kind, target_id;

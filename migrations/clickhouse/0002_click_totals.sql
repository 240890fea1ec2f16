-- All-time counters per link and per QR code, so that a link's headline
-- numbers cost the same at 10 clicks and at 100 million: after background
-- merges each (kind, target_id) is one row, and reading it merges at most a
-- handful of unmerged parts.
--
-- Design of the aggregate tables (0002-0004), and why:
--   * Keyed by (kind, target_id) like the raw table: kind 'link' rows are
--     visits of a short link, kind 'qr' rows are scans of a QR code
--     (/q/{code}). A QR scan is not also a click of the link it points to,
--     unless the visitor's redirect passes through the short link and the
--     edge records that visit too.
--   * Counts are exact: countIf states and SummingMergeTree sums (0004) are
--     integers, never sampled.
--   * uniqueClicks = uniqIf(visitor) over humans: all-time distinct visitor
--     ids, a visitor id being a keyed hash of client IP + User-Agent. uniq
--     is exact while a link has fewer than 65536 distinct visitors (up to
--     32-bit hash collisions: about one lost visitor at ~10^4 visitors) and
--     an adaptive sample (error about 1%) above. Its state is bounded
--     (<= 256 KiB), which keeps merges and reads constant-cost; uniqExact's
--     would grow without bound for a hot link and slow every merge down.
--   * Top-N lists are not topK states (approximate, and without counts);
--     0004 keeps exact counts per (dimension, value).
--   * clicks, uniqueClicks and every top-N (and socialCount, dim
--     'category' in 0004) count humans only; bots, previews and prefetches
--     are counted apart.
--   * Cost matters at insert: every MV runs on every inserted block, and
--     most aggregate rows of long-tail links are written once per click.
--     Hence few aggregate tables (see 0004 for measurements) and large
--     insert batches (the pipeline's default is 50k rows: half the server
--     CPU per click of 10k-row batches on 18.16).
--   * An MV only sees rows inserted after it exists: migrations run at
--     start-up, before the pipeline inserts anything.
--
-- Reading one link, all time:
--   SELECT countIfMerge(humans) AS clicks, uniqIfMerge(visitors) AS unique_clicks,
--          countIfMerge(bots) AS bot_clicks, countIfMerge(previews) AS preview_clicks
--   FROM click_totals WHERE kind = 'link' AND target_id = ?
-- Many links at once (list pages): `AND target_id IN ?` with a
-- clickhouse.GroupSet, GROUP BY target_id.
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

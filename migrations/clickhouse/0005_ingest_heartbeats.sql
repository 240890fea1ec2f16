-- Ingest freshness: every running click pipeline (one per edge process)
-- writes a heartbeat about once per flush interval while ClickHouse answers.
--   writer     host/pid/nonce of the pipeline instance
--   at         when the heartbeat was written
--   watermark  every click this writer captured before this instant is in
--              `clicks` (the capture time of its oldest click still in
--              memory or in its disk spool; `at` when it holds none)
--   lag_ms     at - watermark, in milliseconds
--   pending    clicks the writer holds (queue, batch, spool)
-- Freshness of the whole system = the oldest watermark among writers seen
-- recently (a stopped writer stops counting; its spool is replayed, and its
-- clicks counted, when it starts again):
--   SELECT min(w) AS watermark, max(l) AS lag_ms FROM (
--     SELECT writer, argMax(watermark, at) AS w, argMax(lag_ms, at) AS l, max(at) AS last
--     FROM ingest_heartbeats WHERE at > now() - 3600 GROUP BY writer
--   ) WHERE last > now() - 30
-- ReplacingMergeTree keeps one row per writer after merges; monthly
-- partitions let old ones be dropped.
CREATE TABLE IF NOT EXISTS ingest_heartbeats (
    writer String,
    at DateTime('UTC'),
    watermark DateTime('UTC'),
    lag_ms UInt32,
    pending UInt64
) ENGINE = ReplacingMergeTree(at)
PARTITION BY toYYYYMM(at)
ORDER BY writer;

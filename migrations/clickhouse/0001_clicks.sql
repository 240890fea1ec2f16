-- Raw clicks: one row per visit the edge counted or classified, written by
-- the click pipeline (edge/internal/clicks) in batches that name their
-- columns (ClickHouse 18.16 rejects column-less batch inserts).
--
-- Layout:
--   * PARTITION BY month, so retention is `ALTER TABLE clicks DROP PARTITION
--     YYYYMM` (18.16 has no TTL). The aggregate tables (0002+) keep all-time
--     numbers after raw partitions are dropped.
--   * ORDER BY (kind, target_id, ts): target_id is link_id for kind 'link'
--     and qr_id for kind 'qr', so "one link" and "one QR code" are both a
--     single primary-key range, narrowed further by time (what breakdowns
--     over a date range read: WHERE kind = ? AND target_id = ? AND ts
--     BETWEEN ? AND ?).
--   * ts is DateTime('UTC') so day and hour buckets do not depend on the
--     server's time zone. DateTime64 does not exist on 18.16; second
--     precision is enough for buckets of an hour.
--   * visitor is a keyed 64-bit hash of client IP + User-Agent computed in
--     the pipeline (shared/click); raw IPs are never stored.
--   * click_id is random per click and travels with the row through the
--     pipeline's disk spool, so a row re-sent after an unacknowledged insert
--     keeps its id: duplicates are detectable (count() - uniqExact(click_id))
--     and the pipeline checks ids before replaying an insert whose outcome it
--     does not know. See the package doc of edge/internal/clicks for the one
--     window where a duplicate can remain.
--   * inserted_at is the server's insert time: ts -> inserted_at is the
--     ingest lag of a row (the pipeline also writes ingest_heartbeats, 0005).
--   * Enum8 values are the Go constants of shared/click (Kind, Class,
--     RefCategory); change them together.
--   * Plain String instead of LowCardinality(String): LowCardinality needs an
--     experimental setting for DDL on 18.16, and these columns compress well
--     either way.
CREATE TABLE IF NOT EXISTS clicks (
    click_id UInt64,
    ts DateTime('UTC'),
    inserted_at DateTime('UTC') DEFAULT now(),
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    link_id UInt64,
    qr_id UInt64,
    owner_id UInt64,
    class Enum8('human' = 0, 'bot' = 1, 'preview' = 2, 'prefetch' = 3),
    visitor UInt64,
    country String,
    browser String,
    os String,
    device String,
    referrer_host String,
    referrer_category Enum8('direct' = 0, 'other' = 1, 'socialnetwork' = 2, 'microblog' = 3, 'searchengine' = 4, 'photosharing' = 5, 'messaging' = 6, 'email' = 7),
    language String
) ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (kind, target_id, ts);

-- Which links and QR codes received human clicks, by insert time: what the
-- admin's counter roll-up (admin/internal/stats/rollup.go) reads every
-- second to find the targets whose totals changed.
--
-- Before this table the roll-up asked `clicks` for the targets with rows
-- inserted since its last step. `clicks` is ordered by (kind, target_id,
-- ts), so that filter read the inserted_at column of every row of the
-- partition: 26-37 ms per step at 1.4M rows, growing with the month's
-- clicks (by extrapolation a full core at ~100M) although only the last
-- seconds matter.
-- Here the rows are ordered by insert time, and a step reads just the
-- seconds since its watermark.
--
--   * inserted_at is now() of the INSERT into clicks, the same server clock
--     the roll-up's watermark uses (and what clicks.inserted_at defaults
--     to). A spool replay, however late its ts, is a touch at replay time.
--   * One row per (target, insert): the view groups each inserted block.
--   * Only humans: the roll-up copies human counts.
--   * Daily partitions, dropped by the roll-up's reconcile once older than
--     yesterday (18.16 has no TTL). The reconcile, at start and every
--     10 minutes, reads every target's totals, so nothing depends on
--     touches older than that.
CREATE TABLE IF NOT EXISTS click_touches (
    inserted_at DateTime('UTC'),
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64
) ENGINE = MergeTree
PARTITION BY toYYYYMMDD(inserted_at)
ORDER BY (inserted_at, kind, target_id);

CREATE MATERIALIZED VIEW IF NOT EXISTS click_touches_mv TO click_touches AS
SELECT now() AS inserted_at, kind, target_id
FROM clicks
WHERE class = 'human'
GROUP BY kind, target_id;

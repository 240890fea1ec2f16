-- Distinct visitors ("unique clicks") as uniqCombined(15) sketches at three
-- grains: all time (click_uniques), per UTC day (click_daily_uniques) and
-- per hour (click_hourly_uniques). They replace the uniq states of
-- click_visitors and click_hourly_visitors (0009) for every read.
--
-- Why another estimator: reading a uniq state means inserting every hash it
-- holds (up to 65,536) into a hash set, so a busy link's state costs
-- 13-35 ms to read and the 25 busiest links of a list page 170-206 ms
-- (18.16, 100k links, 10M clicks). A uniqCombined(15) state is a sorted
-- array, then a small hash set, then a 2^15-cell HyperLogLog: the same 25
-- links read in 11-20 ms. Its price is accuracy: exact up to ~2,000
-- distinct visitors per state, typically within 1% above, except between
-- ~80,000 and ~100,000, where the estimate (no bias correction at
-- precision 15) over-counts by 1-2.5% on average and up to ~3.5%;
-- uniq was exact up to 65,536 and ~1% off above. docs/dashboard.md,
-- "Unique clicks: the estimator", has the measurements.
--
-- Why three grains: a date range of whole days merges its days' states
-- (90 for 90 days instead of 2,160 hourly ones: the range's read is the
-- number of states it merges), the hourly series its hours. A sketch of
-- disjoint sets merged is the sketch of their union, so a range covering a
-- link's whole life and its all-time number agree at every grain.
--
-- Why this is exact without a cut-over: the views below exist before the
-- backfill reads the raw rows, and a union of sketches is idempotent, so a
-- click inserted in between (or the file run twice) counts once. The
-- backfill reads the raw tables, so it needs the raw partitions that hold
-- the visits to be counted: drop raw partitions (0001's retention) only
-- after this file has run.
--
-- The uniq views into click_visitors and click_hourly_visitors are dropped
-- at the end: nothing reads those tables any more, and each insert no
-- longer writes and merges their parts. The tables stay for an admin or
-- edge (its public stats page) of an earlier version during a rollout: the
-- unique clicks they show stop moving until they are replaced. A later
-- file can drop the tables.
--
-- chstore.Migrate refuses this file where raw months were dropped for
-- retention (checkRawComplete): their visitors cannot be rebuilt.
CREATE TABLE IF NOT EXISTS click_uniques (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    visitors AggregateFunction(uniqCombined(15), UInt64)
) ENGINE = AggregatingMergeTree
ORDER BY (kind, target_id)
-- A row per target after merges; 4-row granules as click_visitors (0009):
-- a list page reads 25 targets' states, not their neighbours'.
SETTINGS index_granularity = 4;

CREATE TABLE IF NOT EXISTS click_daily_uniques (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    day Date,
    visitors AggregateFunction(uniqCombined(15), UInt64)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (kind, target_id, day)
-- A range merges its days' sketches, and reading a granule deserialises
-- every sketch in it: a 2^15-cell HyperLogLog costs a merge of ~0.1-0.3 ms
-- on 18.16 whether or not its row is in the range. The busiest link's 30
-- days read in 32-37 ms with 256-row granules (2,048 rows read: its busy
-- neighbours' days), 17-23 ms with 32 (clickhouse-client --time, same
-- data, five runs each). The price is the primary index: a mark per 32
-- link-days.
SETTINGS index_granularity = 32;

CREATE TABLE IF NOT EXISTS click_hourly_uniques (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    hour DateTime('UTC'),
    visitors AggregateFunction(uniqCombined(15), UInt64)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (kind, target_id, hour)
SETTINGS index_granularity = 256;

-- One insert's human visitors per (target, hour): stores nothing, feeds
-- the three grains, so each raw row is hashed once (0011's pattern, and
-- its reason for the two chains below).
CREATE TABLE IF NOT EXISTS click_uniques_batch (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    hour DateTime('UTC'),
    visitors AggregateFunction(uniqCombined(15), UInt64)
) ENGINE = Null;

-- The second level, 19.x and later: views on click_uniques_batch. Created
-- before the first level, as in 0011.
CREATE MATERIALIZED VIEW IF NOT EXISTS click_uniques_batch_hourly_mv TO click_hourly_uniques AS
SELECT kind, target_id, hour, visitors
FROM click_uniques_batch;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_uniques_batch_daily_mv TO click_daily_uniques AS
SELECT kind, target_id, toDate(hour) AS day, uniqCombinedMergeState(15)(visitors) AS visitors
FROM click_uniques_batch
GROUP BY kind, target_id, day;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_uniques_batch_total_mv TO click_uniques AS
SELECT kind, target_id, uniqCombinedMergeState(15)(visitors) AS visitors
FROM click_uniques_batch
GROUP BY kind, target_id;

-- The first level: one GROUP BY of each insert into click_events.
CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_uniques_mv TO click_uniques_batch AS
SELECT kind, target_id, toStartOfHour(ts) AS hour, uniqCombinedState(15)(visitor) AS visitors
FROM click_events
WHERE class = 'human'
GROUP BY kind, target_id, hour;

-- The second level, 18.16: the same views on click_events_uniques_mv.
CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_uniques_hourly_mv TO click_hourly_uniques AS
SELECT kind, target_id, hour, visitors
FROM click_events_uniques_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_uniques_daily_mv TO click_daily_uniques AS
SELECT kind, target_id, toDate(hour) AS day, uniqCombinedMergeState(15)(visitors) AS visitors
FROM click_events_uniques_mv
GROUP BY kind, target_id, day;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_uniques_total_mv TO click_uniques AS
SELECT kind, target_id, uniqCombinedMergeState(15)(visitors) AS visitors
FROM click_events_uniques_mv
GROUP BY kind, target_id;

-- clicks, where edges older than 0011 write during a rollout: direct views,
-- which cost nothing once no edge writes there.
CREATE MATERIALIZED VIEW IF NOT EXISTS clicks_hourly_uniques_mv TO click_hourly_uniques AS
SELECT kind, target_id, toStartOfHour(ts) AS hour, uniqCombinedState(15)(visitor) AS visitors
FROM clicks
WHERE class = 'human'
GROUP BY kind, target_id, hour;

CREATE MATERIALIZED VIEW IF NOT EXISTS clicks_daily_uniques_mv TO click_daily_uniques AS
SELECT kind, target_id, toDate(ts) AS day, uniqCombinedState(15)(visitor) AS visitors
FROM clicks
WHERE class = 'human'
GROUP BY kind, target_id, day;

CREATE MATERIALIZED VIEW IF NOT EXISTS clicks_uniques_mv TO click_uniques AS
SELECT kind, target_id, uniqCombinedState(15)(visitor) AS visitors
FROM clicks
WHERE class = 'human'
GROUP BY kind, target_id;

-- The backfill: every human visit counted before the views above existed.
INSERT INTO click_uniques (kind, target_id, visitors)
SELECT kind, target_id, uniqCombinedState(15)(visitor) AS visitors
FROM clicks
WHERE class = 'human'
GROUP BY kind, target_id;

INSERT INTO click_uniques (kind, target_id, visitors)
SELECT kind, target_id, uniqCombinedState(15)(visitor) AS visitors
FROM click_events
WHERE class = 'human'
GROUP BY kind, target_id;

INSERT INTO click_daily_uniques (kind, target_id, day, visitors)
SELECT kind, target_id, toDate(ts) AS day, uniqCombinedState(15)(visitor) AS visitors
FROM clicks
WHERE class = 'human'
GROUP BY kind, target_id, day;

INSERT INTO click_daily_uniques (kind, target_id, day, visitors)
SELECT kind, target_id, toDate(ts) AS day, uniqCombinedState(15)(visitor) AS visitors
FROM click_events
WHERE class = 'human'
GROUP BY kind, target_id, day;

INSERT INTO click_hourly_uniques (kind, target_id, hour, visitors)
SELECT kind, target_id, toStartOfHour(ts) AS hour, uniqCombinedState(15)(visitor) AS visitors
FROM clicks
WHERE class = 'human'
GROUP BY kind, target_id, hour;

INSERT INTO click_hourly_uniques (kind, target_id, hour, visitors)
SELECT kind, target_id, toStartOfHour(ts) AS hour, uniqCombinedState(15)(visitor) AS visitors
FROM click_events
WHERE class = 'human'
GROUP BY kind, target_id, hour;

-- Nothing reads click_visitors or click_hourly_visitors now.
DROP TABLE IF EXISTS click_events_visitors_mv;

DROP TABLE IF EXISTS click_batch_visitors_mv;

DROP TABLE IF EXISTS click_events_hourly_visitors_mv;

DROP TABLE IF EXISTS click_batch_hourly_visitors_mv;

DROP TABLE IF EXISTS click_visitors_mv;

DROP TABLE IF EXISTS click_hourly_visitors_mv;

-- kurz:hold click_events clicks
-- The counters stop carrying visitor states that nothing reads.
--
-- Since 0012 unique clicks are read from the uniqCombined sketches only.
-- Yet every insert still built a uniqIf state per (target, hour) into
-- click_batch (the first view of 0011), and every row of click_hourly and
-- click_totals still carried a uniqIf state: empty from 0011's views, real
-- from the older direct views on clicks. Each merge of those tables
-- deserialised, merged and wrote them again: a merge of 1.9M rows of
-- click_hourly took 0.83 s with the column and 0.52 s without it, and
-- ClickHouse's CPU per ingested click fell by 8-17% in alternated
-- `bench ingest` runs (edge/PERFORMANCE.md, "Issue 15, ninth session").
--
-- The views are replaced and the columns dropped while inserts into the
-- raw tables are held (the first line; chstore/hold.go): on 18.16 a view
-- whose output has a column its target lacks fails the insert, and
-- replacing a counter's view while inserts run would miss or double-count
-- some. The new views and their Null table have new names: two
-- migrators running this file at once (TestMigrateConcurrentRunsAreSafe)
-- must never drop what the other one has just created. Every statement can run again (the runner drops a column only
-- where it still is: 18.16 has no DROP COLUMN IF EXISTS), so a run that
-- dies half-way is repeated whole, still held. Readers never read these
-- columns.

-- The old views: everything that wrote or read click_batch (0011), the
-- 18.16 chain on click_events_batch_mv, and 0002's and 0003's views on
-- clicks.
DROP TABLE IF EXISTS click_events_hourly_mv;

DROP TABLE IF EXISTS click_events_totals_mv;

DROP TABLE IF EXISTS click_events_owner_totals_mv;

DROP TABLE IF EXISTS click_batch_hourly_mv;

DROP TABLE IF EXISTS click_batch_totals_mv;

DROP TABLE IF EXISTS click_batch_owner_totals_mv;

DROP TABLE IF EXISTS click_events_batch_mv;

DROP TABLE IF EXISTS click_batch;

DROP TABLE IF EXISTS click_hourly_mv;

DROP TABLE IF EXISTS click_totals_mv;

ALTER TABLE click_hourly DROP COLUMN visitors;

ALTER TABLE click_totals DROP COLUMN visitors;

-- One insert's counters per (target, owner, hour), as click_batch was
-- without its visitor states: stores nothing, feeds the views below.
CREATE TABLE IF NOT EXISTS click_counts_batch (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    owner_id UInt64,
    hour DateTime('UTC'),
    humans AggregateFunction(countIf, UInt8),
    bots AggregateFunction(countIf, UInt8),
    previews AggregateFunction(countIf, UInt8),
    prefetches AggregateFunction(countIf, UInt8),
    -- humans as a plain number, for click_owner_totals (0011)
    human_clicks UInt64
) ENGINE = Null;

-- The second level, 19.x and later: views on click_counts_batch, created
-- before the first level (0011's order).
CREATE MATERIALIZED VIEW IF NOT EXISTS click_counts_batch_hourly_mv TO click_hourly AS
SELECT kind, target_id, hour, humans, bots, previews, prefetches
FROM click_counts_batch;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_counts_batch_totals_mv TO click_totals AS
SELECT kind, target_id,
    countIfMergeState(humans) AS humans,
    countIfMergeState(bots) AS bots,
    countIfMergeState(previews) AS previews,
    countIfMergeState(prefetches) AS prefetches
FROM click_counts_batch
GROUP BY kind, target_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_counts_batch_owner_totals_mv TO click_owner_totals AS
SELECT kind, owner_id, target_id, sum(human_clicks) AS humans
FROM click_counts_batch
WHERE human_clicks > 0
GROUP BY kind, owner_id, target_id;

-- The first level: one GROUP BY of each insert into click_events.
CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_counts_mv TO click_counts_batch AS
SELECT
    kind,
    target_id,
    owner_id,
    toStartOfHour(ts) AS hour,
    countIfState(class = 'human') AS humans,
    countIfState(class = 'bot') AS bots,
    countIfState(class = 'preview') AS previews,
    countIfState(class = 'prefetch') AS prefetches,
    countIf(class = 'human') AS human_clicks
FROM click_events
GROUP BY kind, target_id, owner_id, hour;

-- The second level, 18.16: the same views on click_events_counts_mv.
CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_counts_hourly_mv TO click_hourly AS
SELECT kind, target_id, hour, humans, bots, previews, prefetches
FROM click_events_counts_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_counts_totals_mv TO click_totals AS
SELECT kind, target_id,
    countIfMergeState(humans) AS humans,
    countIfMergeState(bots) AS bots,
    countIfMergeState(previews) AS previews,
    countIfMergeState(prefetches) AS prefetches
FROM click_events_counts_mv
GROUP BY kind, target_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_counts_owner_totals_mv TO click_owner_totals AS
SELECT kind, owner_id, target_id, sum(human_clicks) AS humans
FROM click_events_counts_mv
WHERE human_clicks > 0
GROUP BY kind, owner_id, target_id;

-- clicks, where edges older than 0011 write during a rollout: 0002's and
-- 0003's direct views without the visitors.
CREATE MATERIALIZED VIEW IF NOT EXISTS clicks_counts_totals_mv TO click_totals AS
SELECT
    kind,
    target_id,
    countIfState(class = 'human') AS humans,
    countIfState(class = 'bot') AS bots,
    countIfState(class = 'preview') AS previews,
    countIfState(class = 'prefetch') AS prefetches
FROM clicks
GROUP BY kind, target_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS clicks_counts_hourly_mv TO click_hourly AS
SELECT
    kind,
    target_id,
    toStartOfHour(ts) AS hour,
    countIfState(class = 'human') AS humans,
    countIfState(class = 'bot') AS bots,
    countIfState(class = 'preview') AS previews,
    countIfState(class = 'prefetch') AS prefetches
FROM clicks
GROUP BY kind, target_id, hour;

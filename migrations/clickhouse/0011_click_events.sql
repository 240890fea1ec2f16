-- The edge's clicks land in click_events from this version on; clicks keeps
-- what came before (and what edges of earlier versions still send during a
-- rollout) with its views. Reads that need raw rows of both use
-- click.RawSource (merge(currentDatabase(), '^(clicks|click_events)$'));
-- date ranges read click_dims_daily for click_events (below).
--
-- Why a new table rather than new views on clicks: a view cannot be swapped
-- exactly while edges insert (a block inserted between the DROP and the
-- CREATE is counted by neither, or by both the other way round). Each
-- INSERT goes to exactly one of the two tables, so every click is counted
-- by exactly one set of views, during the rollout too.
--
-- Why the views are shaped like this: on clicks, five of the seven views
-- group every inserted row by link (and hour) and four of them hash the
-- visitor into a uniq state, two of which are no longer read (click_totals'
-- and click_hourly's visitors: 0009). Here one view groups the insert by
-- (link, owner, hour) into click_batch, a Null table, and the per-link
-- tables are fed from that block, a few rows per link instead of one per
-- click. `bench ingest` in the edge's flow (30k clicks/s over 10k links,
-- one insert a second): ClickHouse CPU per click 9.2/6.5/9.3 µs →
-- 5.8/3.8/5.8 µs (Zipf), 11.1/7.5/10.5 → 4.8/7.3/6.7 µs (uniform); with
-- 100k links, where most links get one click per insert, the whole stack
-- showed no gain within its noise (edge/PERFORMANCE.md).
--
-- Chained views differ between releases: ClickHouse 18.16 pushes a view's
-- output to the views that select FROM the view itself; 19.x and later to
-- the views that select FROM its target table (InsertDependenciesBuilder:
-- the dependents of a view are never expanded, those of its target are).
-- Both chains exist, and on any release exactly one of them runs: an
-- upgrade switches from one to the other without a migration.
-- chstore.Migrate checks this on every run (checkViewChaining) and fails
-- loudly on a server where it does not hold.
-- The same columns as clicks (0001), hence the same insert statement
-- (spelled out, not AS clicks: the cluster rewrite reads column lists).
CREATE TABLE IF NOT EXISTS click_events (
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

-- One insert's clicks per (link, owner, hour): stores nothing, feeds the
-- per-link views below.
CREATE TABLE IF NOT EXISTS click_batch (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    owner_id UInt64,
    hour DateTime('UTC'),
    humans AggregateFunction(countIf, UInt8),
    bots AggregateFunction(countIf, UInt8),
    previews AggregateFunction(countIf, UInt8),
    prefetches AggregateFunction(countIf, UInt8),
    visitors AggregateFunction(uniqIf, UInt64, UInt8),
    -- humans as a plain number, for click_owner_totals (on 18.16 a view's
    -- subquery is not run, so the count cannot be finalised in one)
    human_clicks UInt64
) ENGINE = Null;

-- The views that fill click_batch must exist before click_events gets its
-- first row, and the second level before the first: created bottom-up.

-- The second level, 19.x and later: views on click_batch.
CREATE MATERIALIZED VIEW IF NOT EXISTS click_batch_hourly_mv TO click_hourly AS
SELECT kind, target_id, hour, humans, bots, previews, prefetches,
    arrayReduce('uniqIfState', emptyArrayUInt64(), emptyArrayUInt8()) AS visitors
FROM click_batch;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_batch_hourly_visitors_mv TO click_hourly_visitors AS
SELECT kind, target_id, hour, visitors
FROM click_batch;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_batch_totals_mv TO click_totals AS
SELECT kind, target_id,
    countIfMergeState(humans) AS humans,
    countIfMergeState(bots) AS bots,
    countIfMergeState(previews) AS previews,
    countIfMergeState(prefetches) AS prefetches,
    arrayReduce('uniqIfState', emptyArrayUInt64(), emptyArrayUInt8()) AS visitors
FROM click_batch
GROUP BY kind, target_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_batch_visitors_mv TO click_visitors AS
SELECT kind, target_id, uniqIfMergeState(visitors) AS visitors
FROM click_batch
GROUP BY kind, target_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_batch_owner_totals_mv TO click_owner_totals AS
SELECT kind, owner_id, target_id, sum(human_clicks) AS humans
FROM click_batch
WHERE human_clicks > 0
GROUP BY kind, owner_id, target_id;

-- The first level: one GROUP BY of the inserted block.
CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_batch_mv TO click_batch AS
SELECT
    kind,
    target_id,
    owner_id,
    toStartOfHour(ts) AS hour,
    countIfState(class = 'human') AS humans,
    countIfState(class = 'bot') AS bots,
    countIfState(class = 'preview') AS previews,
    countIfState(class = 'prefetch') AS prefetches,
    uniqIfState(visitor, class = 'human') AS visitors,
    countIf(class = 'human') AS human_clicks
FROM click_events
GROUP BY kind, target_id, owner_id, hour;

-- The second level, 18.16: the same views on click_events_batch_mv.
CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_hourly_mv TO click_hourly AS
SELECT kind, target_id, hour, humans, bots, previews, prefetches,
    arrayReduce('uniqIfState', emptyArrayUInt64(), emptyArrayUInt8()) AS visitors
FROM click_events_batch_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_hourly_visitors_mv TO click_hourly_visitors AS
SELECT kind, target_id, hour, visitors
FROM click_events_batch_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_totals_mv TO click_totals AS
SELECT kind, target_id,
    countIfMergeState(humans) AS humans,
    countIfMergeState(bots) AS bots,
    countIfMergeState(previews) AS previews,
    countIfMergeState(prefetches) AS prefetches,
    arrayReduce('uniqIfState', emptyArrayUInt64(), emptyArrayUInt8()) AS visitors
FROM click_events_batch_mv
GROUP BY kind, target_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_visitors_mv TO click_visitors AS
SELECT kind, target_id, uniqIfMergeState(visitors) AS visitors
FROM click_events_batch_mv
GROUP BY kind, target_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_owner_totals_mv TO click_owner_totals AS
SELECT kind, owner_id, target_id, sum(human_clicks) AS humans
FROM click_events_batch_mv
WHERE human_clicks > 0
GROUP BY kind, owner_id, target_id;

-- The dimensions per day: a date range's breakdown (countries, referrers,
-- browsers, OS, referrer categories, and the devices of the dashboard)
-- sums a link's rows of those days instead of scanning its raw clicks
-- (200k–600k rows, 80–400 ms for a busy link: docs/dashboard.md), and
-- the all-time breakdown sums all its days. click_events feeds this
-- table instead of click_dims_total, which keeps the dimensions of the
-- clicks in clicks; reads add the two (chstore/summary.go).
CREATE TABLE IF NOT EXISTS click_dims_daily (
    kind Enum8('link' = 1, 'qr' = 2),
    target_id UInt64,
    day Date,
    dim String,
    value String,
    hits UInt64
) ENGINE = SummingMergeTree(hits)
PARTITION BY toYYYYMM(day)
ORDER BY (kind, target_id, day, dim, value)
-- A link's days are a few hundred rows; most links' a handful. 8192-row
-- granules made a range read scan its neighbours' rows (160k rows per
-- read for 90 days of the busiest link at 100k links).
SETTINGS index_granularity = 1024;

-- Views on the raw rows that cannot start from click_batch: the
-- dimensions (a row per dimension value) and the owner's days (uniqHLL12
-- of the visitors, not a uniq state).
CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_dims_daily_mv TO click_dims_daily AS
SELECT kind, target_id, toDate(ts) AS day, d.1 AS dim, d.2 AS value, count() AS hits
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

CREATE MATERIALIZED VIEW IF NOT EXISTS click_events_owner_daily_mv TO click_owner_daily AS
SELECT kind, owner_id, toDate(ts) AS day, countState() AS humans, uniqHLL12State(visitor) AS visitors
FROM click_events
WHERE class = 'human'
GROUP BY kind, owner_id, day;

-- Every price tick kurz received (import, push, poller), for charts and
-- audits; the latest quote per symbol lives in PostgreSQL (prices).
--   * MergeTree PARTITION BY month: retention is
--     `ALTER TABLE price_ticks DROP PARTITION YYYYMM` (18.16 has no TTL).
--   * ORDER BY (symbol, ts): one symbol's history is one key range.
--   * price is Decimal(38, 10): exact, never a binary float; the feed's own
--     scale is kept only in PostgreSQL.
--   * ts is the tick's own time (second precision, DateTime has no
--     fractions on 18.16); received_at is when kurz got it.
--   * A file imported twice, or a vendor repeating a quote, appends the same
--     tick again: read history with `LIMIT 1 BY symbol, ts` (or argMax) when
--     duplicates matter.
--   * Inserts are batches that name their columns (18.16 rejects
--     column-less batches and hangs on inline INSERT … VALUES).
CREATE TABLE IF NOT EXISTS price_ticks (
    symbol String,
    ts DateTime('UTC'),
    price Decimal(38, 10),
    currency FixedString(3),
    source Enum8('import' = 1, 'push' = 2, 'poll' = 3),
    received_at DateTime('UTC') DEFAULT now()
) ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (symbol, ts);

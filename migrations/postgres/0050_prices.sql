-- Latest quote per listed symbol (the price API's answer). Every feed
-- (import, push, poller) upserts here only when its tick is newer than the
-- stored one, so an older or replayed tick never overwrites a newer quote:
--   INSERT … ON CONFLICT (symbol) DO UPDATE … WHERE prices.quoted_at < EXCLUDED.quoted_at
-- price is an unconstrained NUMERIC so the feed's scale survives ('189.250'
-- is answered as 189.250): the instrument's precision, never a binary float.
-- Every tick, older ones included, is also appended to ClickHouse
-- price_ticks (history).
CREATE TABLE prices (
    symbol     text        PRIMARY KEY CHECK (symbol = upper(symbol) AND length(symbol) BETWEEN 1 AND 32),
    price      numeric     NOT NULL CHECK (price > 0),
    currency   text        NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    quoted_at  timestamptz NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

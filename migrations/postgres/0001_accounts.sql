-- Accounts, API keys and the shared rate-limit counters.
CREATE TABLE users (
    id            bigserial PRIMARY KEY,
    email         text        NOT NULL,
    username      text        NOT NULL,
    password_hash text        NOT NULL DEFAULT '',
    avatar        text        NOT NULL DEFAULT '',
    plan          text        NOT NULL DEFAULT 'free',
    -- requests per minute; NULL = the plan's default, 0 = unlimited
    rate_limit    integer     CHECK (rate_limit IS NULL OR rate_limit >= 0),
    is_operator   boolean     NOT NULL DEFAULT false,
    -- sha256 of the API key; the key itself is never stored
    api_key_hash  bytea       NOT NULL,
    expires_at    timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE UNIQUE INDEX users_api_key_hash_key ON users (api_key_hash);

-- Fixed-window request counters shared by every admin process.
CREATE TABLE rate_limits (
    bucket       text        PRIMARY KEY,
    window_start timestamptz NOT NULL,
    count        integer     NOT NULL
);

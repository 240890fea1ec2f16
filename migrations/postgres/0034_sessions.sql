-- Dashboard sign-in (issue 16): browser sessions and one-time password
-- reset tokens. Both store only the SHA-256 of the random value the
-- browser or the operator holds, like API keys: a copy of this table lets
-- nobody sign in.
CREATE TABLE sessions (
    id_hash    bytea       PRIMARY KEY,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    -- slides forward while the session is used, never past created_at
    -- plus the absolute lifetime (the admin's dashboard package decides both)
    expires_at timestamptz NOT NULL
);
-- Revoking every session of an account (password change, reset).
CREATE INDEX sessions_user_idx ON sessions (user_id);
-- Pruning expired sessions.
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

CREATE TABLE password_resets (
    token_hash bytea       PRIMARY KEY,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);
CREATE INDEX password_resets_user_idx ON password_resets (user_id);
CREATE INDEX password_resets_expires_idx ON password_resets (expires_at);

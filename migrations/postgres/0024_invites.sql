-- Invitation codes for KURZ_REGISTRATION=invite. An operator creates one
-- with `admin invite create`; POST /api/register consumes one use in the
-- same transaction that inserts the account, so a failed registration
-- uses nothing and concurrent registrations cannot overuse a code.
CREATE TABLE invites (
    id         bigserial   PRIMARY KEY,
    -- sha256 of the code; the code itself is shown once and never stored
    code_hash  bytea       NOT NULL UNIQUE,
    -- registrations still allowed; NULL = unlimited
    uses_left  integer     CHECK (uses_left IS NULL OR uses_left >= 0),
    -- registrations made with it so far
    used       integer     NOT NULL DEFAULT 0,
    expires_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Which invite an account registered with, so the accounts of a leaked
-- code can be found. NULL for accounts made by the CLI or open sign-up.
ALTER TABLE users ADD COLUMN invite_id bigint REFERENCES invites (id) ON DELETE SET NULL;
CREATE INDEX users_invite_id_idx ON users (invite_id) WHERE invite_id IS NOT NULL;

-- Everything a user manages through the link API.
CREATE TABLE domains (
    id            bigserial PRIMARY KEY,
    user_id       bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- host[:port], lower case: what the edge matches the Host header against
    host          text        NOT NULL,
    -- scheme://host[:port] as the user gave it (normalised)
    domain        text        NOT NULL,
    redirect_root text        NOT NULL DEFAULT '',
    redirect_404  text        NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX domains_host_key ON domains (host);
CREATE INDEX domains_user_idx ON domains (user_id, id);

CREATE TABLE overlays (
    id          bigserial PRIMARY KEY,
    user_id     bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name        text        NOT NULL,
    type        text        NOT NULL DEFAULT 'message',
    message     text        NOT NULL DEFAULT '',
    button_text text        NOT NULL DEFAULT '',
    button_url  text        NOT NULL DEFAULT '',
    background  text        NOT NULL DEFAULT '',
    color       text        NOT NULL DEFAULT '',
    position    text        NOT NULL DEFAULT 'bottom-left',
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX overlays_user_idx ON overlays (user_id, id);

CREATE TABLE splash_pages (
    id         bigserial PRIMARY KEY,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       text        NOT NULL,
    title      text        NOT NULL DEFAULT '',
    message    text        NOT NULL DEFAULT '',
    image      text        NOT NULL DEFAULT '',
    link       text        NOT NULL DEFAULT '',
    counter    integer     NOT NULL DEFAULT 5,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX splash_pages_user_idx ON splash_pages (user_id, id);

CREATE TABLE campaigns (
    id         bigserial PRIMARY KEY,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       text        NOT NULL DEFAULT '',
    -- rotator slug, unique across the system; NULL = no rotator
    slug       text,
    public     boolean     NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX campaigns_slug_key ON campaigns (lower(slug));
CREATE INDEX campaigns_user_idx ON campaigns (user_id, id);

CREATE TABLE channels (
    id          bigserial PRIMARY KEY,
    user_id     bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name        text        NOT NULL,
    description text        NOT NULL DEFAULT '',
    color       text        NOT NULL DEFAULT '',
    starred     boolean     NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX channels_user_idx ON channels (user_id, id);

-- Minimal bio pages: enough for channel items of type "bio".
CREATE TABLE bio_pages (
    id         bigserial PRIMARY KEY,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title      text        NOT NULL DEFAULT '',
    alias      text        NOT NULL DEFAULT '',
    channel_id bigint      REFERENCES channels (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bio_pages_user_idx ON bio_pages (user_id, id);

CREATE TABLE pixels (
    id         bigserial PRIMARY KEY,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    type       text        NOT NULL,
    name       text        NOT NULL,
    tag        text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pixels_user_idx ON pixels (user_id, id);

CREATE TABLE links (
    id               bigserial PRIMARY KEY,
    user_id          bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    domain_id        bigint      REFERENCES domains (id) ON DELETE RESTRICT,
    -- '' = the default short domain; else domains.host (denormalised for the edge)
    host             text        NOT NULL DEFAULT '',
    alias            text        NOT NULL,
    custom           boolean     NOT NULL DEFAULT false,
    long_url         text        NOT NULL,
    -- direct | frame | splash | overlay
    type             text        NOT NULL DEFAULT 'direct',
    splash_id        bigint      REFERENCES splash_pages (id) ON DELETE SET NULL,
    overlay_id       bigint      REFERENCES overlays (id) ON DELETE SET NULL,
    password_hash    text        NOT NULL DEFAULT '',
    expires_at       timestamptz,
    meta_title       text        NOT NULL DEFAULT '',
    meta_description text        NOT NULL DEFAULT '',
    meta_image       text        NOT NULL DEFAULT '',
    description      text        NOT NULL DEFAULT '',
    -- public | private
    status           text        NOT NULL DEFAULT 'private',
    channel_id       bigint      REFERENCES channels (id) ON DELETE SET NULL,
    campaign_id      bigint      REFERENCES campaigns (id) ON DELETE SET NULL,
    deeplink_ios     text        NOT NULL DEFAULT '',
    deeplink_android text        NOT NULL DEFAULT '',
    -- [{"location":"de","link":"..."}], country codes upper case ISO 3166 alpha-2
    geo_targets      jsonb       NOT NULL DEFAULT '[]',
    -- [{"device":"iphone","link":"..."}]
    device_targets   jsonb       NOT NULL DEFAULT '[]',
    -- [{"language":"de","link":"..."}]
    lang_targets     jsonb       NOT NULL DEFAULT '[]',
    -- [{"name":"utm_source","value":"x"}]
    parameters       jsonb       NOT NULL DEFAULT '[]',
    -- human clicks rolled up from ClickHouse (analytics)
    clicks           bigint      NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX links_host_alias_key ON links (host, alias);
CREATE INDEX links_user_created_idx ON links (user_id, created_at DESC, id DESC);
CREATE INDEX links_user_clicks_idx ON links (user_id, clicks DESC, id DESC);
CREATE INDEX links_campaign_idx ON links (campaign_id) WHERE campaign_id IS NOT NULL;
CREATE INDEX links_channel_idx ON links (channel_id) WHERE channel_id IS NOT NULL;

CREATE TABLE link_pixels (
    link_id  bigint NOT NULL REFERENCES links (id) ON DELETE CASCADE,
    pixel_id bigint NOT NULL REFERENCES pixels (id) ON DELETE CASCADE,
    PRIMARY KEY (link_id, pixel_id)
);
CREATE INDEX link_pixels_pixel_idx ON link_pixels (pixel_id);

CREATE TABLE qr_codes (
    id         bigserial PRIMARY KEY,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- public identifier in /qr/{code} and /q/{code}
    code       text        NOT NULL,
    name       text        NOT NULL DEFAULT '',
    -- text | vcard | link | email | phone | sms | wifi
    type       text        NOT NULL,
    -- the request's data, as given (string or object)
    data       jsonb       NOT NULL,
    -- the exact string encoded in the image
    content    text        NOT NULL,
    -- for type link: where /q/{code} redirects
    target_url text        NOT NULL DEFAULT '',
    background text        NOT NULL DEFAULT 'rgb(255,255,255)',
    foreground text        NOT NULL DEFAULT 'rgb(0,0,0)',
    -- logo image bytes (png or jpeg), fetched and validated at write time
    logo       bytea,
    channel_id bigint      REFERENCES channels (id) ON DELETE SET NULL,
    scans      bigint      NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX qr_codes_code_key ON qr_codes (code);
CREATE INDEX qr_codes_user_idx ON qr_codes (user_id, id);

-- Shortening a URL again without options returns the user's existing plain
-- link to it (POST /api/url/add, shared/pgstore CreateLinkOrReuse). That
-- lookup is by user and long URL. long_url may be 4096 characters, more
-- than a btree entry may hold (about 2700 bytes), so the index keys on its
-- md5: 16 bytes of hex per row, and the query compares long_url itself too.
CREATE INDEX links_user_long_url_md5_idx ON links (user_id, md5(long_url));

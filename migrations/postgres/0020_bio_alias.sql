-- Bio page aliases are unique per user (case-insensitive): they appear in
-- the page's public address {base}/u/{username}/bio/{alias}.
CREATE UNIQUE INDEX bio_pages_user_alias_key ON bio_pages (user_id, lower(alias));

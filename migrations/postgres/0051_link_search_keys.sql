-- The link search (shared/pgstore, linksearch.go) by keys that include the
-- owner, instead of 0035's trigram indexes.
--
-- Why: 0035's indexes hold every user's links, and the trigrams a search
-- needs ("cam", "amp", "htt", ...) occur in nearly every URL, so the GIN
-- scan read the posting lists of the whole table before the owner filter
-- applied: with 1.03M links, a search of one user's 130k took 135-250 ms,
-- growing with other users' links (docs/dashboard.md). Here each trigram of
-- a link's text is hashed together with its owner, so a key's posting list
-- holds one owner's links (and those of owners whose id shares the residue
-- mod 32749: harmless, the owner filter and the ILIKE recheck drop them).
-- The same search took 6-14 ms.
--
-- A key is (owner mod 32749) * 65536 + (hashtext(trigram) & 65535): an int,
-- always below 2^31. Trigrams are pg_trgm's (show_trgm: lower-cased words
-- of letters and digits), so a text that contains a search, ignoring case,
-- holds every trigram that lies wholly inside the search's words.
-- kurz_search_query_keys finds a search's trigrams with pg_trgm itself:
-- those of each three-character window that are not trigrams of its two
-- two-character halves, i.e. the window's own unpadded trigram when
-- pg_trgm reads all three characters as one word. It may be given the
-- search's ILIKE pattern: % _ and \ are not word characters and produce no
-- key.
--
-- Both sides leave out the trigrams whose text shows a blank: padded ASCII
-- trigrams, which the query never needs (a longer text need not contain
-- them), and also the few multibyte trigrams whose 3-byte hash pg_trgm
-- shows as raw characters that happen to include a blank. The filter must
-- be the same on both sides: a key left out of the index but asked for by a
-- query would hide a match. Padded multibyte trigrams show as hex and stay
-- in the index, unused.
--
-- An empty key array would make the GIN scan match everything, so the
-- caller searches by keys only when the query has some (three ASCII
-- letters or digits in a row, or PostgreSQL says so) and otherwise scans
-- the owner's links.
--
-- The bodies are SQL-standard (RETURN): names are bound when the function
-- is created, so an index expression evaluated under another search path
-- (a restore, maintenance) finds show_trgm, and pg_trgm cannot be dropped
-- from under the index. Like every trigram index, the keys follow the
-- database locale's idea of letters and case: after an upgrade of the
-- C library that changes them, REINDEX links_search_keys_idx.
--
-- The index is built inside the migration's transaction, which blocks
-- writes to links while it builds (94 s for 1.03M links here); run this
-- migration in a quiet moment on a large installation. A link write costs
-- ~40-55 µs more than with 0035's three indexes (docs/dashboard.md).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE FUNCTION kurz_search_keys(owner bigint, alias text, long_url text, meta_title text)
RETURNS int[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY(
    SELECT ((owner % 32749) * 65536 + (hashtext(t) & 65535))::int
    FROM unnest(show_trgm(alias || ' ' || long_url || ' ' || meta_title)) AS t
    WHERE strpos(t, ' ') = 0);

CREATE FUNCTION kurz_search_query_keys(owner bigint, search text)
RETURNS int[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY(
    SELECT DISTINCT ((owner % 32749) * 65536 + (hashtext(t) & 65535))::int
    FROM generate_series(1, length(search) - 2) AS i,
         unnest(show_trgm(substr(search, i, 3))) AS t
    WHERE strpos(t, ' ') = 0
      AND t <> ALL (show_trgm(substr(search, i, 2)))
      AND t <> ALL (show_trgm(substr(search, i + 1, 2))));

CREATE INDEX links_search_keys_idx ON links
    USING gin (kurz_search_keys(user_id, alias, long_url, meta_title));

DROP INDEX IF EXISTS links_alias_trgm_idx;
DROP INDEX IF EXISTS links_long_url_trgm_idx;
DROP INDEX IF EXISTS links_meta_title_trgm_idx;

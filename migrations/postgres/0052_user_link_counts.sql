-- Each user's number of links, kept by triggers, so that the link table's
-- "N links" (dashboard) and GET /api/urls' total cost one row instead of a
-- count of the user's links: 10-25 ms of PostgreSQL CPU per page for a
-- user with 100k-130k links, on every unfiltered list page, beside the
-- page's own reads (docs/dashboard.md). Counts with a search, campaign or
-- channel filter still count the matching links.
--
-- Statement-level triggers with transition tables: one upsert per
-- statement and user, so a COPY of 900k links adds to its user's row once.
-- The row is locked from the statement to its commit: two transactions
-- that add, delete or move links of the same user take turns at that
-- point, as they would for any counter. A statement that changes several
-- users' counts locks their rows in user id order first, so two such
-- statements cannot deadlock each other. Decrements are UPDATEs, never
-- inserts: when a user is deleted, the cascade deletes its links (whose
-- trigger finds the user's count row, or does not) and its count row.
-- TRUNCATE empties the counts with the links.
--
-- The lock first, before any statement takes a snapshot (which under
-- REPEATABLE READ would be the migration's for all of it): no link can be
-- added or removed between the count below and the triggers taking over.
LOCK TABLE links IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE user_link_counts (
    user_id bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    links bigint NOT NULL
);

CREATE FUNCTION kurz_count_links() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- Net change per user: new rows add, old rows take away (an UPDATE
    -- that keeps every link's owner changes nothing and writes nothing).
    -- Each statement below names only the transition tables its
    -- operation has: PL/pgSQL plans a statement when it first runs it.
    IF TG_OP = 'INSERT' THEN
        INSERT INTO user_link_counts AS c (user_id, links)
        SELECT user_id, count(*) FROM new_links GROUP BY user_id ORDER BY user_id
        ON CONFLICT (user_id) DO UPDATE SET links = c.links + EXCLUDED.links;
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM 1 FROM user_link_counts
        WHERE user_id IN (SELECT user_id FROM old_links) ORDER BY user_id FOR UPDATE;
        UPDATE user_link_counts AS c SET links = c.links - o.n
        FROM (SELECT user_id, count(*) AS n FROM old_links GROUP BY user_id) AS o
        WHERE c.user_id = o.user_id;
    ELSIF TG_OP = 'UPDATE' THEN
        PERFORM 1 FROM user_link_counts
        WHERE user_id IN (
            SELECT user_id FROM (
                SELECT user_id, 1 AS n FROM new_links
                UNION ALL
                SELECT user_id, -1 FROM old_links) AS x
            GROUP BY user_id HAVING sum(n) <> 0)
        ORDER BY user_id FOR UPDATE;
        WITH d AS (
            SELECT user_id, sum(n) AS n FROM (
                SELECT user_id, 1 AS n FROM new_links
                UNION ALL
                SELECT user_id, -1 FROM old_links) AS x
            GROUP BY user_id HAVING sum(n) <> 0),
        gained AS (
            INSERT INTO user_link_counts AS c (user_id, links)
            SELECT user_id, n FROM d WHERE n > 0 ORDER BY user_id
            ON CONFLICT (user_id) DO UPDATE SET links = c.links + EXCLUDED.links)
        UPDATE user_link_counts AS c SET links = c.links + d.n
        FROM d WHERE c.user_id = d.user_id AND d.n < 0;
    ELSE
        DELETE FROM user_link_counts;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER links_count_insert AFTER INSERT ON links
    REFERENCING NEW TABLE AS new_links
    FOR EACH STATEMENT EXECUTE FUNCTION kurz_count_links();
CREATE TRIGGER links_count_delete AFTER DELETE ON links
    REFERENCING OLD TABLE AS old_links
    FOR EACH STATEMENT EXECUTE FUNCTION kurz_count_links();
CREATE TRIGGER links_count_update AFTER UPDATE ON links
    REFERENCING OLD TABLE AS old_links NEW TABLE AS new_links
    FOR EACH STATEMENT EXECUTE FUNCTION kurz_count_links();
CREATE TRIGGER links_count_truncate AFTER TRUNCATE ON links
    FOR EACH STATEMENT EXECUTE FUNCTION kurz_count_links();

INSERT INTO user_link_counts (user_id, links)
SELECT user_id, count(*) FROM links GROUP BY user_id;

-- A frame or overlay link whose destination refuses to be framed
-- (X-Frame-Options, CSP frame-ancestors) shows the browser's error page in
-- the frame, and browsers give the page no way to notice. The admin checks
-- the destinations' headers when such a link is written and records the
-- answer here; the edge then serves the link as a plain redirect. A
-- constant default: adding the column rewrites no rows (PostgreSQL 11+).
ALTER TABLE links ADD COLUMN frame_refused boolean NOT NULL DEFAULT false;

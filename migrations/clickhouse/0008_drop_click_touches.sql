-- The counter roll-up that read click_touches (0006) is gone (issue 15):
-- list pages read click_totals directly and order by click_owner_totals
-- (0007). Its view ran on every insert block for nothing.
DROP TABLE IF EXISTS click_touches_mv;

DROP TABLE IF EXISTS click_touches;

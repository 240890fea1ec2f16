package pgstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"kurz/shared/link"
)

// The dashboard's link table: search, and keyset pages in date order, so
// the hundredth page of a user with 100k links costs what the first does
// (an OFFSET would read and drop every row before it). The order by clicks
// comes from ClickHouse (ClickRanking) and pages by offset, as the API's
// (linkrank.go).

// LinkCursor is a position in the date order: the last (or first) row
// shown. CreatedAt has the database's microsecond precision.
type LinkCursor struct {
	CreatedAt time.Time
	ID        int64
}

// LinkQuery selects a page of one user's links.
type LinkQuery struct {
	UserID int64
	// Search, when not "", keeps the links whose alias, long URL or meta
	// title contains it, ignoring case; % and _ match themselves.
	Search string
	// CampaignID and ChannelID, when not 0, keep the links of that
	// campaign or channel only.
	CampaignID, ChannelID int64
	Limit                 int
	// Date order, newest first: After lists the links older than the
	// cursor, Before those newer than it (nil both: the newest page).
	After, Before *LinkCursor
	// Rank, when set, orders by clicks instead (ties newest first) and
	// Offset pages; the cursors are ignored.
	Rank   *ClickRanking
	Offset int
	// Matches, with Rank and a search, is the search's matches read
	// meanwhile (PrefetchMatches).
	Matches *Matches
	// NoTotal skips counting the matching links (LinkPage.Total stays 0):
	// a filtered count of a 100k-link user's links is 10-20 ms that a list
	// which does not show it (home's top links, a form's select) need not
	// pay (the unfiltered count is kept, one row).
	NoTotal bool
}

// LinkPage is one page of a LinkQuery.
type LinkPage struct {
	Links []link.Link
	// Total is the number of the user's links matching Search and the
	// campaign and channel filters.
	Total int
	// Older and Newer say whether links exist beyond this page in each
	// direction of the date order; with Rank, Older means another page.
	Older, Newer bool
}

// linkFilter selects the links a page query looks at: the user's, with
// Pattern (an ILIKE pattern, "" = no search), in CampaignID and ChannelID
// (0 = any). Its WHERE clause binds $1-$4 (args).
type linkFilter struct {
	userID            int64
	pattern           string
	keyed             bool // the search has keys (searchKeyed)
	campaign, channel int64
}

func (f linkFilter) args() []any { return []any{f.userID, f.pattern, f.campaign, f.channel} }

// where is the WHERE clause every page query shares. Without a search it
// does not mention the text columns. With one, it is a plain OR of ILIKEs,
// behind the owner's search keys when the text has some: the keys' GIN
// index (migration 0051) finds the owner's candidates and the ILIKEs check
// them. Testing the pattern for emptiness inside the clause, as one query
// for every case would, hides the index from the planner; an empty key
// array would make the GIN scan read every link of every user.
func (f linkFilter) where() string {
	const (
		refs = ` AND ($3::bigint = 0 OR l.campaign_id = $3) AND ($4::bigint = 0 OR l.channel_id = $4)`
		text = ` AND (l.alias ILIKE $2 OR l.long_url ILIKE $2 OR l.meta_title ILIKE $2)`
		keys = ` AND kurz_search_keys(l.user_id, l.alias, l.long_url, l.meta_title) @> kurz_search_query_keys($1, $2)`
	)
	switch {
	case f.pattern == "":
		return `l.user_id = $1 AND $2::text = ''` + refs
	case f.keyed:
		return `l.user_id = $1` + keys + text + refs
	default:
		return `l.user_id = $1` + text + refs
	}
}

// searchKeyed reports whether a search has keys for the index of
// migration 0051. Three ASCII letters or digits in a row are (part of) a
// word for pg_trgm in every locale, so such a search has a key without
// asking; whether other characters are letters is the database locale's
// call, so for other searches of three characters or more PostgreSQL says
// (a round trip, for non-ASCII searches only). Searches without keys
// (shorter ones, punctuation) scan the owner's links instead.
func (s *Store) searchKeyed(ctx context.Context, search string) (bool, error) {
	if hasASCIIKey(search) {
		return true, nil
	}
	if utf8.RuneCountInString(search) < 3 {
		return false, nil
	}
	// The keys of the ILIKE pattern, as the WHERE clause takes them.
	var keyed bool
	if err := s.pool.QueryRow(ctx, `SELECT cardinality(kurz_search_query_keys(0, $1)) > 0`, likePattern(search)).Scan(&keyed); err != nil {
		return false, fmt.Errorf("search keys: %w", mapErr(err))
	}
	return keyed, nil
}

// hasASCIIKey reports whether search has three ASCII letters or digits in
// a row.
func hasASCIIKey(search string) bool {
	run := 0
	for i := 0; i < len(search); i++ {
		c := search[i]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			if run++; run == 3 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

const (
	olderSQL = `SELECT ` + linkColumns + ` WHERE %s
	AND ($5::timestamptz IS NULL OR (l.created_at, l.id) < ($5, $6))
	ORDER BY l.created_at DESC, l.id DESC LIMIT $7`
	newerSQL = `SELECT ` + linkColumns + ` WHERE %s
	AND (l.created_at, l.id) > ($5, $6)
	ORDER BY l.created_at ASC, l.id ASC LIMIT $7`
	countSQL = `SELECT count(*) FROM links l WHERE %s`
	// userLinksSQL is the number of all the user's links, kept by the
	// triggers of migration 0052: one row instead of counting 100k links
	// (10-25 ms) on every unfiltered page of the link table.
	userLinksSQL = `SELECT coalesce((SELECT links FROM user_link_counts WHERE user_id = $1), 0)`
)

// SearchLinks returns the page q selects. The count of the matching
// links and the page are read side by side: the page waits for the slower
// of the two, not their sum.
func (s *Store) SearchLinks(ctx context.Context, q LinkQuery) (LinkPage, error) {
	var (
		page  LinkPage
		total int
	)
	f, err := s.filter(ctx, q)
	if err != nil {
		return LinkPage{}, err
	}
	g, gctx := errgroup.WithContext(ctx)
	if !q.NoTotal {
		g.Go(func() (err error) {
			total, err = s.countMatching(gctx, f)
			return err
		})
	}
	g.Go(func() (err error) {
		page, err = s.searchPage(gctx, f, q)
		return err
	})
	if err := g.Wait(); err != nil {
		return LinkPage{}, err
	}
	page.Total = total
	return page, nil
}

// CountMatching is the number of the user's links q's search, campaign
// and channel select (LinkPage.Total), for a caller that starts it before
// it knows the page: the dashboard's table by clicks asks ClickHouse for
// the ranking first.
func (s *Store) CountMatching(ctx context.Context, q LinkQuery) (int, error) {
	f, err := s.filter(ctx, q)
	if err != nil {
		return 0, err
	}
	return s.countMatching(ctx, f)
}

func (s *Store) countMatching(ctx context.Context, f linkFilter) (int, error) {
	sql, args := fmt.Sprintf(countSQL, f.where()), f.args()
	if f.pattern == "" && f.campaign == 0 && f.channel == 0 {
		sql, args = userLinksSQL, []any{f.userID}
	}
	var total int
	if err := s.pool.QueryRow(ctx, sql, args...).Scan(&total); err != nil {
		return 0, fmt.Errorf("count links of user %d: %w", f.userID, mapErr(err))
	}
	return total, nil
}

// filter is the linkFilter of q.
func (s *Store) filter(ctx context.Context, q LinkQuery) (linkFilter, error) {
	f := linkFilter{userID: q.UserID, pattern: likePattern(q.Search), campaign: q.CampaignID, channel: q.ChannelID}
	if q.Search != "" {
		var err error
		if f.keyed, err = s.searchKeyed(ctx, q.Search); err != nil {
			return f, err
		}
	}
	return f, nil
}

// searchPage reads the links of the page q selects, without the total.
func (s *Store) searchPage(ctx context.Context, f linkFilter, q LinkQuery) (LinkPage, error) {
	var page LinkPage
	if q.Rank != nil {
		links, more, err := s.rankedPage(ctx, f, q.Rank, q.Matches, q.Offset, q.Limit)
		if err != nil {
			return page, fmt.Errorf("search links of user %d: %w", q.UserID, err)
		}
		page.Links, page.Older, page.Newer = links, more, q.Offset > 0
		return page, nil
	}
	filter, where := f.args(), f.where()
	var (
		sql  string
		args []any
	)
	// One row more than the page tells whether another page follows.
	n := q.Limit + 1
	switch {
	case q.Before != nil:
		sql, args = newerSQL, append(filter, q.Before.CreatedAt, q.Before.ID, n)
	case q.After != nil:
		sql, args = olderSQL, append(filter, q.After.CreatedAt, q.After.ID, n)
	default:
		sql, args = olderSQL, append(filter, nil, int64(0), n)
	}
	links, err := s.queryLinks(ctx, fmt.Sprintf(sql, where), args...)
	if err != nil {
		return page, fmt.Errorf("search links of user %d: %w", q.UserID, err)
	}
	more := len(links) > q.Limit
	if more {
		links = links[:q.Limit]
	}
	switch {
	case q.Before != nil:
		slices.Reverse(links)
		page.Newer, page.Older = more, true
	default:
		page.Older, page.Newer = more, q.After != nil
	}
	page.Links = links
	return page, nil
}

// queryLinks runs a query selecting linkColumns.
func (s *Store) queryLinks(ctx context.Context, sql string, args ...any) ([]link.Link, error) {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	return collectLinks(rows)
}

func collectLinks(rows pgx.Rows) ([]link.Link, error) {
	defer rows.Close()
	out := []link.Link{}
	for rows.Next() {
		l, err := scanLink(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *l)
	}
	return out, mapErr(rows.Err())
}

// likePattern turns a search text into an ILIKE pattern matching it
// anywhere, its own wildcards escaped ("" stays "": no search).
func likePattern(search string) string {
	if search == "" {
		return ""
	}
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(search) + "%"
}

// CountLinks is the number of the user's links.
func (s *Store) CountLinks(ctx context.Context, userID int64) (int, error) {
	return s.CountMatching(ctx, LinkQuery{UserID: userID})
}

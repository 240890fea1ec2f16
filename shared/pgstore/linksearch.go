package pgstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

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
	// NoTotal skips counting the matching links (LinkPage.Total stays 0):
	// a count of a 100k-link user's links is 10-20 ms that a list which
	// does not show it (home's top links, a form's select) need not pay.
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
	campaign, channel int64
}

func (f linkFilter) args() []any { return []any{f.userID, f.pattern, f.campaign, f.channel} }

// where is the WHERE clause every page query shares. Without a search it
// does not mention the text columns, and with one it is a plain OR of
// ILIKEs, which the trigram indexes of migration 0035 answer (testing the
// pattern for emptiness inside the OR, as one query for both cases would,
// hides them from the planner).
func (f linkFilter) where() string {
	const refs = ` AND ($3::bigint = 0 OR l.campaign_id = $3) AND ($4::bigint = 0 OR l.channel_id = $4)`
	if f.pattern == "" {
		return `l.user_id = $1 AND $2::text = ''` + refs
	}
	return `l.user_id = $1 AND (l.alias ILIKE $2 OR l.long_url ILIKE $2 OR l.meta_title ILIKE $2)` + refs
}

const (
	olderSQL = `SELECT ` + linkColumns + ` WHERE %s
	AND ($5::timestamptz IS NULL OR (l.created_at, l.id) < ($5, $6))
	ORDER BY l.created_at DESC, l.id DESC LIMIT $7`
	newerSQL = `SELECT ` + linkColumns + ` WHERE %s
	AND (l.created_at, l.id) > ($5, $6)
	ORDER BY l.created_at ASC, l.id ASC LIMIT $7`
	countSQL = `SELECT count(*) FROM links l WHERE %s`
)

// SearchLinks returns the page q selects. The count of the matching
// links and the page are read side by side: the page waits for the slower
// of the two, not their sum.
func (s *Store) SearchLinks(ctx context.Context, q LinkQuery) (LinkPage, error) {
	var (
		page  LinkPage
		total int
	)
	g, gctx := errgroup.WithContext(ctx)
	if !q.NoTotal {
		g.Go(func() (err error) {
			total, err = s.CountMatching(gctx, q)
			return err
		})
	}
	g.Go(func() (err error) {
		page, err = s.searchPage(gctx, q.filter(), q)
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
	f := q.filter()
	var total int
	if err := s.pool.QueryRow(ctx, fmt.Sprintf(countSQL, f.where()), f.args()...).Scan(&total); err != nil {
		return 0, fmt.Errorf("count links of user %d: %w", q.UserID, mapErr(err))
	}
	return total, nil
}

func (q LinkQuery) filter() linkFilter {
	return linkFilter{userID: q.UserID, pattern: likePattern(q.Search), campaign: q.CampaignID, channel: q.ChannelID}
}

// searchPage reads the links of the page q selects, without the total.
func (s *Store) searchPage(ctx context.Context, f linkFilter, q LinkQuery) (LinkPage, error) {
	var page LinkPage
	if q.Rank != nil {
		links, more, err := s.rankedPage(ctx, f, q.Rank, q.Offset, q.Limit)
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

package pgstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"kurz/shared/link"
)

// The dashboard's link table: search, and keyset pages in date order, so
// the hundredth page of a user with 100k links costs what the first does
// (an OFFSET would read and drop every row before it). The order by clicks
// comes from ClickHouse (ClickRanking) and pages by offset, as the API's.

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

// searchFilter is the WHERE clause every page query shares: $1 user, $2
// pattern (empty: no search), $3 campaign and $4 channel (0: any).
const searchFilter = `l.user_id = $1 AND ($2 = '' OR l.alias ILIKE $2 OR l.long_url ILIKE $2 OR l.meta_title ILIKE $2)
	AND ($3::bigint = 0 OR l.campaign_id = $3) AND ($4::bigint = 0 OR l.channel_id = $4)`

const (
	olderSQL = `SELECT ` + linkColumns + ` WHERE ` + searchFilter + `
	AND ($5::timestamptz IS NULL OR (l.created_at, l.id) < ($5, $6))
	ORDER BY l.created_at DESC, l.id DESC LIMIT $7`
	newerSQL = `SELECT ` + linkColumns + ` WHERE ` + searchFilter + `
	AND (l.created_at, l.id) > ($5, $6)
	ORDER BY l.created_at ASC, l.id ASC LIMIT $7`
	rankedSQL = `SELECT ` + linkColumns + `
	LEFT JOIN unnest($5::bigint[], $6::bigint[]) AS r(id, n) ON r.id = l.id
	WHERE ` + searchFilter + `
	ORDER BY coalesce(r.n, 0) DESC, l.created_at DESC, l.id DESC LIMIT $7 OFFSET $8`
	countSQL = `SELECT count(*) FROM links l WHERE ` + searchFilter
)

// SearchLinks returns the page q selects.
func (s *Store) SearchLinks(ctx context.Context, q LinkQuery) (LinkPage, error) {
	filter := []any{q.UserID, likePattern(q.Search), q.CampaignID, q.ChannelID}
	var page LinkPage
	if err := s.pool.QueryRow(ctx, countSQL, filter...).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("count links of user %d: %w", q.UserID, mapErr(err))
	}
	var (
		sql  string
		args []any
	)
	// One row more than the page tells whether another page follows.
	n := q.Limit + 1
	switch {
	case q.Rank != nil:
		sql, args = rankedSQL, append(filter, q.Rank.IDs, q.Rank.Clicks, n, q.Offset)
	case q.Before != nil:
		sql, args = newerSQL, append(filter, q.Before.CreatedAt, q.Before.ID, n)
	case q.After != nil:
		sql, args = olderSQL, append(filter, q.After.CreatedAt, q.After.ID, n)
	default:
		sql, args = olderSQL, append(filter, nil, int64(0), n)
	}
	links, err := s.queryLinks(ctx, sql, args...)
	if err != nil {
		return page, fmt.Errorf("search links of user %d: %w", q.UserID, err)
	}
	more := len(links) > q.Limit
	if more {
		links = links[:q.Limit]
	}
	switch {
	case q.Rank != nil:
		page.Older, page.Newer = more, q.Offset > 0
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
	var n int
	if err := s.pool.QueryRow(ctx, countSQL, userID, "", 0, 0).Scan(&n); err != nil {
		return 0, fmt.Errorf("count links of user %d: %w", userID, mapErr(err))
	}
	return n, nil
}

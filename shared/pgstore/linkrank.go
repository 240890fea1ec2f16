package pgstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"kurz/shared/link"
)

// Lists ordered by clicks (the API's order=click, the dashboard's table).
// The counts live in ClickHouse, the links here, so a page is found by
// walking the ranking, most clicked first, and keeping the ids that are
// the user's existing links matching the search, until the page (and one
// row more) is full; past the clicked links come the unclicked ones,
// newest first. A page's cost follows its depth, not the number of the
// user's links: the first page of a user with 100k clicked links looks at
// a few hundred ids, where joining the whole ranking with every link read
// and sorted them all (~300 ms at 100k links).

// ClickRanking is the start of a user's clicked links in rank order: most
// human clicks first, ties higher id (newer link) first. It may name links
// deleted since or other users' ids; they are skipped.
type ClickRanking struct {
	IDs, Clicks []int64
	// Complete says IDs hold every clicked link. When it is false and the
	// walk needs more, Extend reads at least n entries from the start.
	Complete bool
	Extend   func(ctx context.Context, n int) (*ClickRanking, error)
}

// rankChunkMin is the first slice of the ranking looked at; each next
// slice is four times the last, so a walk makes a handful of queries.
const rankChunkMin = 256

// rankMatchMax is the most matching links a searched walk reads at once
// (matchingIDs) instead of checking slices of the ranking.
const rankMatchMax = 20000

const (
	// rankChunkSQL keeps the ids of $5 that the filter ($1-$4) selects.
	rankChunkSQL = `SELECT l.id FROM links l WHERE l.id = ANY($5::bigint[]) AND `
	// matchingSQL is the ids of the links the filter ($1-$4) selects, at
	// most $5.
	matchingSQL = `SELECT l.id FROM links l WHERE %s LIMIT $5`
	// unclickedSQL pages the links the ranking ($5, complete) does not
	// name, newest first.
	unclickedSQL = `SELECT l.id FROM links l WHERE %s
	AND NOT EXISTS (SELECT 1 FROM unnest($5::bigint[]) AS r(id) WHERE r.id = l.id)
	ORDER BY l.created_at DESC, l.id DESC LIMIT $6 OFFSET $7`
	linksByIDSQL = `SELECT ` + linkColumns + ` WHERE l.user_id = $1 AND l.id = ANY($2::bigint[])`
)

// rankedPage returns the links at offset..offset+limit of the links f
// selects in click order, and whether more follow.
func (s *Store) rankedPage(ctx context.Context, f linkFilter, rank *ClickRanking, pre *Matches, offset, limit int) ([]link.Link, bool, error) {
	need := offset + limit + 1
	ids, rank, err := s.walkRanking(ctx, f, rank, pre, need)
	if err != nil {
		return nil, false, err
	}
	if len(ids) < need && (rank.Complete || rank.Extend == nil) {
		// Unclicked links take the positions from len(ids) on.
		rest, err := s.unclicked(ctx, f, rank.IDs, need-max(len(ids), offset), max(0, offset-len(ids)))
		if err != nil {
			return nil, false, err
		}
		if offset >= len(ids) {
			ids = ids[:0]
			offset = 0
		}
		ids = append(ids, rest...)
	}
	more := len(ids) > offset+limit
	ids = ids[min(offset, len(ids)):min(offset+limit, len(ids))]
	links, err := s.linksInOrder(ctx, f.userID, ids)
	return links, more, err
}

// walkRanking collects, in rank order, up to need ids of the links f
// selects, extending the ranking as the walk needs. It returns the
// ranking as far as it was read.
//
// A search whose matches are sparse in the ranking (the first slice found
// too few to finish within the next one, and the next one would not end
// the ranking) reads the ids of all its matches at once through the search
// keys' index instead, when they are at most rankMatchMax, and walks the
// ranking against them: for a search matching 1% of 130k links that is
// one query of ~10 ms where the slices of 1,024 and 4,096 ranked ids took
// ~7 and ~19 ms, each checking its ids' rows. With more matches than that,
// the slices go on. Matches read beside the ranking (pre, when it holds
// them all) are used from the start.
func (s *Store) walkRanking(ctx context.Context, f linkFilter, rank *ClickRanking, pre *Matches, need int) ([]int64, *ClickRanking, error) {
	var (
		out      []int64
		matching map[int64]bool // every matching id, once read
		decided  bool           // whether to read them was decided (after the first slice)
	)
	if f.keyed {
		all, err := pre.wait(f)
		if err != nil {
			return nil, nil, err
		}
		matching, decided = all, all != nil
	}
	seen := map[int64]bool{}
	pos, chunk := 0, max(2*need, rankChunkMin)
	for len(out) < need {
		if pos >= len(rank.IDs) {
			if rank.Complete || rank.Extend == nil {
				break
			}
			longer, err := rank.Extend(ctx, max(4*len(rank.IDs), 4*need))
			if err != nil {
				return nil, nil, err
			}
			// The longer ranking is read anew: clicks since the last read
			// may have moved a link ahead of where the walk was, so the
			// walk starts over; seen keeps what it already took.
			rank, pos = longer, 0
			continue
		}
		end := min(pos+chunk, len(rank.IDs))
		keep := matching
		if keep == nil {
			var err error
			if keep, err = s.rankChunk(ctx, f, rank.IDs[pos:end]); err != nil {
				return nil, nil, err
			}
		}
		for _, id := range rank.IDs[pos:end] {
			if keep[id] && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
		pos, chunk = end, chunk*4
		if decided {
			continue
		}
		decided = true
		// Reading the matches saves queries only when the next slice would
		// not end the walk.
		beyond := pos+chunk < len(rank.IDs) || !rank.Complete && rank.Extend != nil
		if f.keyed && len(out) < need && beyond && sparse(len(out), pos, need, chunk) {
			all, err := s.matchingIDs(ctx, f, rankMatchMax)
			if err != nil {
				return nil, nil, err
			}
			matching = all // nil when there are too many: the slices go on
		}
	}
	return out, rank, nil
}

// sparse reports whether, at the density found so far (found of the first
// pos ranked ids), the walk would need more than the next slice of chunk
// ids to find need.
func sparse(found, pos, need, chunk int) bool {
	if found == 0 {
		return true
	}
	return (need-found)*pos/found > chunk
}

// matchingIDs is the set of the ids f selects, or nil when there are more
// than most.
func (s *Store) matchingIDs(ctx context.Context, f linkFilter, most int) (map[int64]bool, error) {
	ids, err := s.queryIDs(ctx, fmt.Sprintf(matchingSQL, f.where()), append(f.args(), most+1)...)
	if err != nil {
		return nil, fmt.Errorf("match links of user %d: %w", f.userID, err)
	}
	if len(ids) > most {
		return nil, nil
	}
	return idSet(ids), nil
}

func (s *Store) rankChunk(ctx context.Context, f linkFilter, ids []int64) (map[int64]bool, error) {
	keep, err := s.queryIDs(ctx, rankChunkSQL+f.where(), append(f.args(), ids)...)
	if err != nil {
		return nil, fmt.Errorf("rank links of user %d: %w", f.userID, err)
	}
	return idSet(keep), nil
}

// unclicked pages the links f selects that clicked does not name, newest
// first.
func (s *Store) unclicked(ctx context.Context, f linkFilter, clicked []int64, limit, offset int) ([]int64, error) {
	ids, err := s.queryIDs(ctx, fmt.Sprintf(unclickedSQL, f.where()), append(f.args(), clicked, limit, offset)...)
	if err != nil {
		return nil, fmt.Errorf("list unclicked links of user %d: %w", f.userID, err)
	}
	return ids, nil
}

// queryIDs runs a query that selects one bigint column.
func (s *Store) queryIDs(ctx context.Context, sql string, args ...any) ([]int64, error) {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, mapErr(err)
}

func idSet(ids []int64) map[int64]bool {
	set := make(map[int64]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return set
}

// linksInOrder reads the user's links with ids, in the order of ids.
func (s *Store) linksInOrder(ctx context.Context, userID int64, ids []int64) ([]link.Link, error) {
	if len(ids) == 0 {
		return []link.Link{}, nil
	}
	links, err := s.queryLinks(ctx, linksByIDSQL, userID, ids)
	if err != nil {
		return nil, fmt.Errorf("read links of user %d: %w", userID, err)
	}
	at := make(map[int64]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	slices.SortFunc(links, func(a, b link.Link) int { return at[a.ID] - at[b.ID] })
	return links, nil
}

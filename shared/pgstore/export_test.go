package pgstore

import (
	"context"
	"fmt"
)

// PlainLinkSQL lets the external tests check the dedupe lookup's plan.
const PlainLinkSQL = plainLinkSQL

// LikePattern lets the external tests check the search keys against every
// substring of a text.
var LikePattern = likePattern

// SearchKeyed reports whether a search goes to the search keys' index.
func (s *Store) SearchKeyed(ctx context.Context, search string) (bool, error) {
	return s.searchKeyed(ctx, search)
}

// SearchCountSQL is the count query of a search of a user's links, with
// its arguments, for the plan test.
func (s *Store) SearchCountSQL(ctx context.Context, userID int64, search string) (string, []any, error) {
	f, err := s.filter(ctx, LinkQuery{UserID: userID, Search: search})
	return fmt.Sprintf(countSQL, f.where()), f.args(), err
}

// MatchingIDs is the set of ids of the user's links a search matches, nil
// when there are more than most.
func (s *Store) MatchingIDs(ctx context.Context, userID int64, search string, most int) (map[int64]bool, error) {
	f, err := s.filter(ctx, LinkQuery{UserID: userID, Search: search})
	if err != nil {
		return nil, err
	}
	return s.matchingIDs(ctx, f, most)
}

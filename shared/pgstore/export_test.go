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

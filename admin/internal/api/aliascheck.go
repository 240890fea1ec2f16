package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"kurz/shared/link"
)

// The dashboard's "is this alias free?" as the user types: the same alias
// rules as POST /api/url/add (link.ValidCustomAlias, the domain field's
// reading), answered without writing anything.

// Alias check outcomes.
const (
	AliasAvailable = "available"
	AliasTaken     = "taken"
	AliasInvalid   = "invalid"
)

// AliasCheck is the answer for one alias: Status is one of the Alias*
// constants; Message says why, in the API's words, for invalid and taken.
type AliasCheck struct {
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// CheckAlias answers whether u could create a link with alias on domain
// ("" = the default short domain; otherwise one of u's domains). Checks
// are counted per user in their own bucket with the user's API limit per
// minute (LimitOf): a script cannot probe aliases faster through the
// dashboard than through the API. Over the limit it is a 429 *Error.
func (s *Server) CheckAlias(ctx context.Context, u *link.User, domain, alias string) (AliasCheck, error) {
	a, err := s.Throttle(ctx, "aliascheck:"+strconv.FormatInt(u.ID, 10), LimitOf(u), rateWindow)
	if err != nil {
		return AliasCheck{}, err
	}
	if a.Wait > 0 {
		return AliasCheck{}, Errorf(http.StatusTooManyRequests, "too many alias checks; try again in %d seconds", int(a.Wait.Seconds()))
	}
	if err := link.ValidCustomAlias(alias); err != nil {
		return AliasCheck{Status: AliasInvalid, Message: "custom: " + err.Error()}, nil
	}
	host, err := s.linkHost(domain)
	if err != nil {
		return AliasCheck{Status: AliasInvalid, Message: err.Error()}, nil
	}
	if host != "" {
		// Another user's domain answers as an unknown one: whose aliases
		// exist there is not this caller's business.
		if _, err := s.store.DomainByHost(ctx, u.ID, host); errors.Is(err, link.ErrNotFound) {
			return AliasCheck{Status: AliasInvalid, Message: "domain: must be one of your domains"}, nil
		} else if err != nil {
			return AliasCheck{}, err
		}
	}
	taken, err := s.store.AliasTaken(ctx, host, alias)
	if err != nil {
		return AliasCheck{}, err
	}
	if taken {
		return AliasCheck{Status: AliasTaken, Message: "custom: alias already taken"}, nil
	}
	return AliasCheck{Status: AliasAvailable}, nil
}

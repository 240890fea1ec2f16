package dashboard

import (
	"context"
	"errors"
	"net/netip"
	"time"

	"kurz/shared/link"
)

// lookupFunc finds the account a password is checked for and its hash;
// link.ErrNotFound when there is none.
type lookupFunc func(ctx context.Context) (*link.User, string, error)

// checkPassword is the throttled password check of sign-in and of the
// account page (throttle.go): it counts the attempt of the client at ip,
// looks the account up, counts it against the account (named tried when
// unknown), checks pw under the API's hashing cap and gives the counts
// back when pw was right. u is the account when pw is right, else nil; a
// wait > 0 means the attempt was refused unchecked. An account without a
// password (made by `admin user create` without one) never matches.
func (s *Server) checkPassword(ctx context.Context, ip netip.Addr, tried, pw string, lookup lookupFunc) (u *link.User, wait time.Duration, err error) {
	t, wait, err := s.admitClient(ctx, ip)
	if err != nil || wait > 0 {
		return nil, wait, err
	}
	u, hash, err := lookup(ctx)
	switch {
	case errors.Is(err, link.ErrNotFound):
		u = nil
	case err != nil:
		s.giveBack(ctx, t)
		return nil, 0, err
	}
	var id int64
	if u != nil {
		id = u.ID
	}
	if t, wait, err = s.admitAccount(ctx, t, ip, accountKey(id, tried)); err != nil || wait > 0 {
		return nil, wait, err
	}
	check := hash
	if u == nil || hash == "" {
		check = s.dummyHash // the same work as a real check: the answer's timing tells nothing
	}
	ok, err := s.api.VerifyPassword(ctx, check, pw)
	if err != nil {
		s.giveBack(ctx, t) // never checked (server busy)
		return nil, 0, err
	}
	if !ok || u == nil || hash == "" {
		return nil, 0, nil
	}
	s.giveBack(ctx, t)
	return u, 0, nil
}

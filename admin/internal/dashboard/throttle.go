package dashboard

import (
	"context"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"kurz/admin/internal/api"
)

// Password guessing is throttled with the policy of the edge's link
// passwords (edge/internal/server/pwlimit.go), on the API's shared
// PostgreSQL counters (api.Server.Throttle), so every admin process
// enforces one budget. A sign-in (and a current-password check on the
// account page) must pass, in this order:
//   - its client's budget: loginPerClient per loginWindow, the client
//     being the IPv4 address or the IPv6 /64 (one subscriber's block);
//   - its source's share of the account: loginPerSource, the source being
//     the IPv4 address or the IPv6 /48, so one site cannot use up the
//     account's cap alone from its many /64s;
//   - the account's cap: loginPerAccount from everyone. Once reached,
//     every sign-in of the account waits for the window to end, right
//     password or not: the cap bounds a distributed guesser, at the price
//     that a big enough one can hold an account's sign-in closed for a
//     minute.
//
// Every attempt is counted before its password is checked, so parallel
// guesses cannot all pass while the counts are still low; a right
// password gives its counts back, so only wrong ones use up a budget.
// Unknown accounts are counted under the name tried, and checked against
// a dummy hash: they cost and answer like wrong passwords.
const (
	loginWindow     = time.Minute
	loginPerClient  = 5
	loginPerAccount = 30
	loginPerSource  = loginPerAccount / 3
)

// ticket is the attempts counted for one password check.
type ticket []api.Attempt

// admitClient counts a password attempt of the client at ip; wait > 0
// refuses it.
func (s *Server) admitClient(ctx context.Context, ip netip.Addr) (ticket, time.Duration, error) {
	return s.admit(ctx, nil, "login:client:"+api.ClientKey(ip), loginPerClient)
}

// admitAccount adds the account's budgets (account: "u<id>", or "n<name
// tried>" for an unknown one) to t; wait > 0 refuses the attempt and gives
// back what t counted.
func (s *Server) admitAccount(ctx context.Context, t ticket, ip netip.Addr, account string) (ticket, time.Duration, error) {
	t, wait, err := s.admit(ctx, t, "login:source:"+account+":"+sourceKey(ip), loginPerSource)
	if wait > 0 || err != nil {
		return t, wait, err
	}
	return s.admit(ctx, t, "login:account:"+account, loginPerAccount)
}

func (s *Server) admit(ctx context.Context, t ticket, bucket string, limit int) (ticket, time.Duration, error) {
	a, err := s.api.Throttle(ctx, bucket, limit, loginWindow)
	if err != nil || a.Wait > 0 {
		s.giveBack(ctx, t)
		return nil, a.Wait, err
	}
	return append(t, a), 0, nil
}

// giveBack returns a right password's (or an unchecked attempt's) counts.
// A failed refund only makes the budget stricter: it is logged.
func (s *Server) giveBack(ctx context.Context, t ticket) {
	for _, a := range t {
		if err := s.api.Refund(ctx, a); err != nil {
			s.log.Warn("refund sign-in attempt", "err", err)
		}
	}
}

// accountKey names an account in the throttle's buckets: its id when it
// exists, else the name tried (lower case, as names are compared).
func accountKey(id int64, tried string) string {
	if id != 0 {
		return "u" + strconv.FormatInt(id, 10)
	}
	return "n" + strings.ToLower(tried)
}

// sourceKey is the source an attempt counts as in an account's share:
// the IPv4 address, or the IPv6 /48.
func sourceKey(ip netip.Addr) string {
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(48)
		return p.String()
	}
	return ip.String()
}

// waitSeconds is wait in whole seconds, rounded up, at least 1.
func waitSeconds(wait time.Duration) int { return max(int((wait+time.Second-1)/time.Second), 1) }

// waitText says how long to wait, for the page.
func waitText(wait time.Duration) string {
	secs := waitSeconds(wait)
	if secs == 1 {
		return "1 second"
	}
	return strconv.Itoa(secs) + " seconds"
}

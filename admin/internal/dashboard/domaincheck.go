package dashboard

import (
	"context"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"kurz/admin/internal/dnscheck"
	"kurz/shared/hostname"
)

// The domain page's "Check DNS": whether the record users were told to
// create is in place (dnscheck), shown on the page with what was found.
// The API deliberately has no such call: DNS is the user's to change, and
// the edge answers a domain as soon as its record reaches it.

// dnsChecksAtOnce bounds concurrent checks; more wait for none and are
// told to try again. dnsCheckEvery is how often one user may check: longer
// than a check may take, so a user has one in flight at most and cannot
// hold every slot (or make this server a DNS query pump).
const (
	dnsChecksAtOnce = 4
	dnsCheckEvery   = 5 * time.Second
)

// checkGate remembers each user's last check.
type checkGate struct {
	mu   sync.Mutex
	last map[int64]time.Time
}

// allow reports whether user may check now, and if so counts the check.
func (g *checkGate) allow(user int64, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if at, ok := g.last[user]; ok && now.Sub(at) < dnsCheckEvery {
		return false
	}
	if g.last == nil || len(g.last) >= 4096 {
		g.last = prune(g.last, now)
	}
	g.last[user] = now
	return true
}

// prune keeps the entries still inside the window.
func prune(last map[int64]time.Time, now time.Time) map[int64]time.Time {
	out := make(map[int64]time.Time, len(last)/2+1)
	for u, at := range last {
		if now.Sub(at) < dnsCheckEvery {
			out[u] = at
		}
	}
	return out
}

// dnsReport is a check's outcome in words.
type dnsReport struct {
	Kind  string // notice class: ok, warn, error, info
	Title string
	Text  string
	Busy  bool // no check was made: try again later (429)
}

// checkDomain runs the check and shows the domain's page with its result.
func (s *Server) checkDomain(w http.ResponseWriter, r *http.Request, c *call) error {
	d, err := s.ownDomain(r, c)
	if err != nil {
		return err
	}
	f := storedDomainForm(&d)
	report := s.dnsReportOf(r.Context(), c.user.ID, hostname.NameOf(d.Host))
	if report.Busy {
		f.Status = http.StatusTooManyRequests
		w.Header().Set("Retry-After", strconv.Itoa(int(dnsCheckEvery/time.Second)))
	}
	return s.showDomainEdit(w, r, c, f, &d, &report)
}

func (s *Server) dnsReportOf(ctx context.Context, user int64, host string) dnsReport {
	want, err := dnscheck.ParseExpect(s.dnsAdvice().Record)
	if err != nil {
		return dnsReport{Kind: "info", Title: "This record cannot be checked here",
			Text: "The record this service asks for is not a CNAME, A or AAAA record, so the dashboard cannot compare it. Ask the service's operator whether " + host + " is set up."}
	}
	if !s.dnsGate.allow(user, time.Now()) {
		return dnsReport{Kind: "info", Busy: true, Title: "Checked a moment ago", Text: "Wait a few seconds before checking again: DNS changes take longer than that to show."}
	}
	select {
	case s.dnsSlots <- struct{}{}:
		defer func() { <-s.dnsSlots }()
	default:
		return dnsReport{Kind: "info", Busy: true, Title: "Busy", Text: "Too many checks are running. Try again in a few seconds."}
	}
	ctx, cancel := context.WithTimeout(ctx, dnscheck.Timeout)
	defer cancel()
	return reportOf(dnscheck.Check(ctx, s.dns, host, want))
}

func reportOf(res dnscheck.Result) dnsReport {
	via := ""
	if res.CNAME != "" {
		via = " (through CNAME " + res.CNAME + ")"
	}
	switch res.Verdict {
	case dnscheck.PointsHere:
		if res.CNAME != "" && len(res.Want) == 0 {
			return dnsReport{Kind: "ok", Title: res.Host + " points here", Text: "Its CNAME leads to " + res.CNAME + ". Short links on it reach this service."}
		}
		return dnsReport{Kind: "ok", Title: res.Host + " points here",
			Text: "It resolves to " + addrList(res.Addrs) + via + ", an address of this service. Short links on it reach this service."}
	case dnscheck.Missing:
		return dnsReport{Kind: "warn", Title: res.Host + " has no DNS record yet",
			Text: "Create the record above at your DNS provider. A new record can take from minutes to a day to be seen everywhere."}
	case dnscheck.Elsewhere:
		return dnsReport{Kind: "error", Title: res.Host + " points elsewhere",
			Text: "It resolves to " + addrList(res.Addrs) + via + ", not to this service (" + addrList(res.Want) + "). Change its record to the one above; until then its short links do not reach this service."}
	}
	return dnsReport{Kind: "info", Title: "The check could not tell", Text: sentence(res.Reason) + ". Try again later."}
}

// addrList names at most four addresses; private ones (loopback, RFC
// 1918, link-local, ULA) are not spelled out: they say nothing a user can
// act on and something about the network this server runs in.
func addrList(as []netip.Addr) string {
	const most = 4
	parts := make([]string, 0, most)
	for _, a := range as {
		if len(parts) == most {
			parts = append(parts, "…")
			break
		}
		v := a.String()
		if a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsUnspecified() {
			v = "a private address"
		}
		if !slices.Contains(parts, v) {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, ", ")
}

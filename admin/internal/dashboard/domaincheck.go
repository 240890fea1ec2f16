package dashboard

import (
	"context"
	"net/http"
	"net/netip"
	"strings"

	"kurz/admin/internal/dnscheck"
	"kurz/shared/hostname"
)

// The domain page's "Check DNS": whether the record users were told to
// create is in place (dnscheck), shown on the page with what was found.
// The API deliberately has no such call: DNS is the user's to change, and
// the edge answers a domain as soon as its record reaches it.

// dnsChecksAtOnce bounds concurrent checks; more wait for none and are
// told to try again.
const dnsChecksAtOnce = 4

// dnsReport is a check's outcome in words.
type dnsReport struct {
	Kind  string // notice class: ok, warn, error, info
	Title string
	Text  string
}

// checkDomain runs the check and shows the domain's page with its result.
func (s *Server) checkDomain(w http.ResponseWriter, r *http.Request, c *call) error {
	d, err := s.ownDomain(r, c)
	if err != nil {
		return err
	}
	report := s.dnsReportOf(r.Context(), hostname.NameOf(d.Host))
	return s.showDomainEdit(w, r, c, storedDomainForm(&d), &d, &report)
}

func (s *Server) dnsReportOf(ctx context.Context, host string) dnsReport {
	want, err := dnscheck.ParseExpect(s.dnsAdvice().Record)
	if err != nil {
		return dnsReport{Kind: "info", Title: "This record cannot be checked here",
			Text: "The record this service asks for is not a CNAME, A or AAAA record, so the dashboard cannot compare it. Ask the service's operator whether " + host + " is set up."}
	}
	select {
	case s.dnsSlots <- struct{}{}:
		defer func() { <-s.dnsSlots }()
	default:
		return dnsReport{Kind: "info", Title: "Busy", Text: "Too many checks are running. Try again in a few seconds."}
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

func addrList(as []netip.Addr) string {
	const most = 4
	parts := make([]string, 0, most)
	for i, a := range as {
		if i == most {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, a.String())
	}
	return strings.Join(parts, ", ")
}

package dashboard

import (
	"net/http"
	"strings"

	"kurz/admin/internal/api"
	"kurz/shared/hostname"
	"kurz/shared/link"
)

// Branded domains: the list, add (api.Server.AddDomain, what POST
// /api/domain/add calls) with the DNS record to create, and delete
// (api.Server.DeleteDomain: a domain links still use is refused).

const domainsPerPage = 25

type domainRow struct {
	ID           int64
	Domain       string
	Host         string // the name to create the DNS record for
	RedirectRoot string
	Redirect404  string
	Created      string
}

func domainRowOf(d *link.Domain) domainRow {
	return domainRow{ID: d.ID, Domain: d.Domain, Host: hostname.NameOf(d.Host), RedirectRoot: d.RedirectRoot,
		Redirect404: d.Redirect404, Created: when(d.CreatedAt)}
}

// dnsAdvice is the record a branded domain needs: the operator's
// KURZ_DOMAIN_DNS, else a CNAME to the default short domain's name, which
// reaches the same edge.
type dnsAdvice struct {
	Record   string // e.g. "CNAME edge.example.net"
	Operator bool   // Record is the operator's own
}

func (s *Server) dnsAdvice() dnsAdvice {
	if s.cfg.DomainDNS != "" {
		return dnsAdvice{Record: s.cfg.DomainDNS, Operator: true}
	}
	return dnsAdvice{Record: "CNAME " + hostname.NameOf(s.cfg.BaseHost) + "."}
}

type domainsData struct {
	Rows    []domainRow
	Total   int
	Page    int
	PrevURL string
	NextURL string
	DNS     dnsAdvice
}

func (s *Server) domainsPage(w http.ResponseWriter, r *http.Request, c *call) error {
	page, err := listPage(r)
	if err != nil {
		return err
	}
	ds, total, err := s.store.ListDomains(r.Context(), c.user.ID, domainsPerPage, (page-1)*domainsPerPage)
	if err != nil {
		return err
	}
	d := domainsData{Total: total, Page: page, DNS: s.dnsAdvice()}
	for i := range ds {
		d.Rows = append(d.Rows, domainRowOf(&ds[i]))
	}
	d.PrevURL, d.NextURL = pagerURLs("/domains", page, domainsPerPage, total)
	s.render(w, r, c, http.StatusOK, "domains", "Branded domains", d)
	return nil
}

type domainFormData struct {
	Form   *form
	DNS    dnsAdvice
	Domain *domainRow // the edited domain; nil on the add form
	Check  *dnsReport // the DNS check just run; nil without one
}

var domainFormFields = []string{"domain", "redirectroot", "redirect404"}

var domainFields = map[string]string{"domain": "domain", "redirectroot": "redirectroot", "redirect404": "redirect404"}

func (s *Server) showDomainForm(w http.ResponseWriter, r *http.Request, c *call, f *form) error {
	s.render(w, r, c, f.Status, "domainform", "New branded domain", domainFormData{Form: f, DNS: s.dnsAdvice()})
	return nil
}

func (s *Server) newDomainPage(w http.ResponseWriter, r *http.Request, c *call) error {
	return s.showDomainForm(w, r, c, newForm())
}

func (s *Server) createDomain(w http.ResponseWriter, r *http.Request, c *call) error {
	f := readForm(r, domainFormFields...)
	dom, root, nf := strings.TrimSpace(f.Val("domain")), strings.TrimSpace(f.Val("redirectroot")), strings.TrimSpace(f.Val("redirect404"))
	_, err := s.api.AddDomain(r.Context(), c.user, &api.DomainInput{Domain: &dom, RedirectRoot: &root, Redirect404: &nf})
	if err == nil {
		s.setFlash(w, c, flash{Kind: flashOK, Text: "Domain " + dom + " added. Short links can use it once its DNS record points here."})
		http.Redirect(w, r, "/domains", http.StatusSeeOther)
		return nil
	}
	if !f.refuse(err, domainFields) {
		return err
	}
	return s.showDomainForm(w, r, c, f)
}

// ownDomain loads the path's domain if it is the caller's; any other id
// (malformed, unknown, another user's) is the same 404.
func (s *Server) ownDomain(r *http.Request, c *call) (link.Domain, error) {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return link.Domain{}, errNotFound
	}
	return s.store.DomainByID(r.Context(), c.user.ID, id)
}

func (s *Server) editDomainPage(w http.ResponseWriter, r *http.Request, c *call) error {
	d, err := s.ownDomain(r, c)
	if err != nil {
		return err
	}
	return s.showDomainEdit(w, r, c, storedDomainForm(&d), &d, nil)
}

// storedDomainForm is the edit form filled with the stored redirects.
func storedDomainForm(d *link.Domain) *form {
	f := newForm()
	f.Values["redirectroot"], f.Values["redirect404"] = d.RedirectRoot, d.Redirect404
	return f
}

func (s *Server) showDomainEdit(w http.ResponseWriter, r *http.Request, c *call, f *form, d *link.Domain, check *dnsReport) error {
	row := domainRowOf(d)
	s.render(w, r, c, f.Status, "domainform", "Redirects of "+row.Host, domainFormData{Form: f, DNS: s.dnsAdvice(), Domain: &row, Check: check})
	return nil
}

// saveDomain changes the redirects through api.Server.UpdateDomain (what
// PUT /api/domain/:id/update calls): both are sent, so an emptied one is
// removed; the address never changes.
func (s *Server) saveDomain(w http.ResponseWriter, r *http.Request, c *call) error {
	d, err := s.ownDomain(r, c)
	if err != nil {
		return err
	}
	f := readForm(r, "redirectroot", "redirect404")
	root, nf := strings.TrimSpace(f.Val("redirectroot")), strings.TrimSpace(f.Val("redirect404"))
	err = s.api.UpdateDomain(r.Context(), c.user, d.ID, &api.DomainInput{RedirectRoot: &root, Redirect404: &nf})
	if err == nil {
		s.setFlash(w, c, flash{Kind: flashOK, Text: "Redirects of " + d.Domain + " saved."})
		http.Redirect(w, r, "/domains", http.StatusSeeOther)
		return nil
	}
	if !f.refuse(err, domainFields) {
		return err
	}
	return s.showDomainEdit(w, r, c, f, &d, nil)
}

type domainDeleteData struct {
	Domain domainRow
	Form   *form
}

func (s *Server) deleteDomainPage(w http.ResponseWriter, r *http.Request, c *call) error {
	d, err := s.ownDomain(r, c)
	if err != nil {
		return err
	}
	s.render(w, r, c, http.StatusOK, "domaindelete", "Delete domain", domainDeleteData{Domain: domainRowOf(&d), Form: newForm()})
	return nil
}

func (s *Server) deleteDomain(w http.ResponseWriter, r *http.Request, c *call) error {
	d, err := s.ownDomain(r, c)
	if err != nil {
		return err
	}
	if err := s.api.DeleteDomain(r.Context(), c.user, d.ID); err != nil {
		f := newForm()
		if !f.refuse(err, nil) {
			return err
		}
		// Links still use it (409): say so on the confirmation page, without
		// the API's field prefix ("domain: 3 short links use it; …").
		if _, msg, ok := strings.Cut(f.Alert, ": "); ok {
			f.Alert = sentence(msg) + "."
		}
		s.render(w, r, c, f.Status, "domaindelete", "Delete domain", domainDeleteData{Domain: domainRowOf(&d), Form: f})
		return nil
	}
	s.setFlash(w, c, flash{Kind: flashOK, Text: "Domain " + d.Domain + " deleted."})
	http.Redirect(w, r, "/domains", http.StatusSeeOther)
	return nil
}

package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"

	"kurz/shared/hostname"
	"kurz/shared/link"
)

func (s *Server) domainRoutes() {
	s.handle(s.api, "/api/domains", Methods{http.MethodGet: s.listDomains})
	s.handle(s.api, "/api/domain/add", Methods{http.MethodPost: s.addDomain})
	s.handle(s.api, "/api/domain/{id}/update", Methods{http.MethodPut: s.updateDomain})
	s.handle(s.api, "/api/domain/{id}/delete", Methods{http.MethodDelete: s.deleteDomain})
}

// pathInt64 parses a path id strictly (a positive decimal int64); anything
// else is the same 404 as an unknown id.
func pathInt64(r *http.Request, name, what string) (int64, error) {
	v := r.PathValue(name)
	if v == "" || v[0] == '+' || v[0] == '0' {
		return 0, NotFound(what)
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id <= 0 {
		return 0, NotFound(what)
	}
	return id, nil
}

// storeErr names the missing record of a two-record request (assign).
func storeErr(err error) error {
	var nf *link.NotFoundError
	if errors.As(err, &nf) {
		return NotFound(nf.What)
	}
	return err
}

func domainJSON(d link.Domain) map[string]any {
	return map[string]any{"id": d.ID, "domain": d.Domain, "redirectroot": d.RedirectRoot, "redirect404": d.Redirect404}
}

func (s *Server) listDomains(w http.ResponseWriter, r *http.Request, u *link.User) error {
	p, err := ParsePage(r)
	if err != nil {
		return err
	}
	ds, total, err := s.store.ListDomains(r.Context(), u.ID, p.Limit, p.Offset())
	if err != nil {
		return err
	}
	items := make([]map[string]any, 0, len(ds))
	for _, d := range ds {
		items = append(items, domainJSON(d))
	}
	return List(w, p, total, "domains", items)
}

type domainIn struct {
	Domain       *string `json:"domain"`
	RedirectRoot *string `json:"redirectroot"`
	Redirect404  *string `json:"redirect404"`
}

// optionalURL validates an optional redirect: "" means none.
func optionalURL(field, raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	v, err := link.ValidURL(raw)
	if err != nil {
		return "", BadRequest(field, err.Error())
	}
	return v, nil
}

// checkRedirects validates the redirects that are set, in place. A root
// redirect back to the domain's own root would loop. The domain matches
// by name, whatever the port or spelling (loops.go).
func checkRedirects(host string, in *domainIn) error {
	if in.RedirectRoot != nil {
		v, err := optionalURL("redirectroot", *in.RedirectRoot)
		if err != nil {
			return err
		}
		if v != "" && urlHostName(v) == hostname.NameOf(host) && isRootPath(v) {
			return BadRequest("redirectroot", "must not point at the domain's own root (a redirect loop)")
		}
		in.RedirectRoot = &v
	}
	if in.Redirect404 != nil {
		v, err := optionalURL("redirect404", *in.Redirect404)
		if err != nil {
			return err
		}
		// Any URL on the domain itself loops once its alias is missing.
		if v != "" && urlHostName(v) == hostname.NameOf(host) {
			return BadRequest("redirect404", "must not point at the domain itself (a redirect loop)")
		}
		in.Redirect404 = &v
	}
	return nil
}

// withRedirects is d with the redirects sent in in applied.
func withRedirects(d link.Domain, in *domainIn) link.Domain {
	if in.RedirectRoot != nil {
		d.RedirectRoot = *in.RedirectRoot
	}
	if in.Redirect404 != nil {
		d.Redirect404 = *in.Redirect404
	}
	return d
}

// refuseRedirectLoop refuses redirects of d that would send visitors in
// a circle through the caller's domains (loops.go). Only a redirect being
// set needs the caller's other domains; clearing one never loops. Two
// concurrent updates may still close a circle between them (no lock spans
// check and write): a browser stops such a loop after a few hops, and the
// owner breaks it by changing either redirect.
func (s *Server) refuseRedirectLoop(ctx context.Context, userID int64, d link.Domain, in *domainIn) error {
	if (in.RedirectRoot == nil || *in.RedirectRoot == "") && (in.Redirect404 == nil || *in.Redirect404 == "") {
		return nil
	}
	others, err := s.store.DomainsOf(ctx, userID)
	if err != nil {
		return err
	}
	return redirectLoop(d, in, others)
}

// isRootPath reports whether a valid URL's path is the root, whatever its
// query or fragment, after the dot segments and doubled slashes that
// browsers and the edge resolve ("/./", "//", "/a/..").
func isRootPath(valid string) bool {
	u, err := url.Parse(valid)
	return err == nil && path.Clean("/"+u.Path) == "/"
}

func (s *Server) addDomain(w http.ResponseWriter, r *http.Request, u *link.User) error {
	var in domainIn
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	id, err := s.AddDomain(r.Context(), u, &in)
	if err != nil {
		return err
	}
	return OK(w, map[string]any{"id": id})
}

// DomainInput is the body of POST /api/domain/add. The dashboard's domain
// form fills one too, so both go through AddDomain: one validation, one
// write path.
type DomainInput = domainIn

// AddDomain checks in as POST /api/domain/add does and stores the domain;
// it returns the new id.
func (s *Server) AddDomain(ctx context.Context, u *link.User, in *DomainInput) (int64, error) {
	if in.Domain == nil || *in.Domain == "" {
		return 0, BadRequest("domain", "required, e.g. https://go.example.com")
	}
	addr, host, err := link.ParseDomain(*in.Domain)
	if err != nil {
		return 0, BadRequest("domain", err.Error())
	}
	// The edge ignores a Host header's port when no domain claims it
	// exactly, so the default domain's name with any port is refused: it
	// would answer for the default domain's every link.
	if hostname.NameOf(host) == hostname.NameOf(s.cfg.BaseHost) {
		return 0, BadRequest("domain", link.ErrDomainReserved.Error())
	}
	if err := checkRedirects(host, in); err != nil {
		return 0, err
	}
	d := withRedirects(link.Domain{UserID: u.ID, Host: host, Domain: addr}, in)
	if err := s.refuseRedirectLoop(ctx, u.ID, d, in); err != nil {
		return 0, err
	}
	id, err := s.store.CreateDomain(ctx, d)
	if errors.Is(err, link.ErrConflict) {
		return 0, Conflict("domain: already registered")
	}
	return id, err
}

func (s *Server) updateDomain(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, err := pathInt64(r, "id", "domain")
	if err != nil {
		return err
	}
	var in domainIn
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	if err := s.UpdateDomain(r.Context(), u, id, &in); err != nil {
		return err
	}
	return Message(w, "domain updated")
}

// UpdateDomain checks in as PUT /api/domain/:id/update does and changes
// the sent redirects of the user's domain id ("" removes one). The
// address never changes. Another user's or an unknown id is a 404 error.
func (s *Server) UpdateDomain(ctx context.Context, u *link.User, id int64, in *DomainInput) error {
	if in.Domain != nil {
		return BadRequest("domain", "cannot be changed; add a new domain and delete this one")
	}
	if in.RedirectRoot == nil && in.Redirect404 == nil {
		return BadRequest("redirectroot", "send redirectroot and/or redirect404")
	}
	d, err := s.store.DomainByID(ctx, u.ID, id)
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("domain")
	}
	if err != nil {
		return err
	}
	if err := checkRedirects(d.Host, in); err != nil {
		return err
	}
	if err := s.refuseRedirectLoop(ctx, u.ID, withRedirects(d, in), in); err != nil {
		return err
	}
	if err := s.store.UpdateDomain(ctx, u.ID, id, in.RedirectRoot, in.Redirect404); err != nil {
		if errors.Is(err, link.ErrNotFound) {
			return NotFound("domain")
		}
		return err
	}
	return nil
}

func (s *Server) deleteDomain(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, err := pathInt64(r, "id", "domain")
	if err != nil {
		return err
	}
	if err := s.DeleteDomain(r.Context(), u, id); err != nil {
		return err
	}
	return Message(w, "domain deleted")
}

// DeleteDomain deletes the user's domain id as DELETE
// /api/domain/:id/delete does: a domain links still use is a 409.
func (s *Server) DeleteDomain(ctx context.Context, u *link.User, id int64) error {
	err := s.store.DeleteDomain(ctx, u.ID, id)
	var inUse *link.InUseError
	switch {
	case errors.As(err, &inUse):
		return Conflict(fmt.Sprintf("domain: %d short links use it; delete or move them first", inUse.N))
	case errors.Is(err, link.ErrNotFound):
		return NotFound("domain")
	}
	return err
}

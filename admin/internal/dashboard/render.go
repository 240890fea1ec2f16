package dashboard

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"

	"kurz/shared/link"
)

// templateFiles are the pages: layout.html and partials.html are shared,
// every other file is one page defining "content".
//
//go:embed templates
var templateFiles embed.FS

// pages holds one template set per page (layout + partials + the page),
// so each page's "content" is its own.
type pages struct {
	sets map[string]*template.Template
}

func loadPages(a *assets) (*pages, error) {
	base, err := template.New("").Funcs(templateFuncs(a)).
		ParseFS(templateFiles, "templates/layout.html", "templates/partials.html")
	if err != nil {
		return nil, fmt.Errorf("parse layout: %w", err)
	}
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return nil, err
	}
	p := &pages{sets: map[string]*template.Template{}}
	for _, n := range names {
		page := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if page == "layout" || page == "partials" {
			continue
		}
		set, err := template.Must(base.Clone()).ParseFS(templateFiles, n)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", n, err)
		}
		p.sets[page] = set
	}
	return p, nil
}

// view is what the layout renders; Data is the page's own.
type view struct {
	Title string
	Page  string
	User  *link.User
	CSRF  string
	Nonce string
	Flash *flash
	Data  any
}

// render writes page with status. It renders into a buffer first, so a
// template failure is a clean 500, never half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, c *call, status int, page, title string, data any) {
	set, ok := s.pages.sets[page]
	if !ok {
		s.log.Error("dashboard: no such page", "page", page)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	v := view{Title: title, Page: page, User: c.user, CSRF: s.token(c), Nonce: c.nonce,
		Flash: s.takeFlash(w, r, c), Data: data}
	var buf bytes.Buffer
	if err := set.ExecuteTemplate(&buf, "layout", v); err != nil {
		s.log.Error("dashboard: render", "page", page, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes()) //nolint:errcheck // the client went away
}

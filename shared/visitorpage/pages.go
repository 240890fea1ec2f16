package visitorpage

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strings"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets/base.css
var baseCSS string

//go:embed assets/splash.js
var splashJS string

//go:embed assets/pixel.js
var pixelJS string

//go:embed assets/frame.js
var frameJS string

// Header is one HTTP response header of a page.
type Header struct{ Name, Value string }

// Pages holds the parsed templates and the per-page headers. It is
// immutable after New and safe for concurrent use.
type Pages struct {
	sets    [numKinds]*template.Template
	headers [numKinds][]Header
	csp     policies
	start   string // the "start" template's output: every page's fixed head
}

// New parses the embedded templates and computes the CSP hashes of the
// inline assets. Call it once at start-up.
func New() (*Pages, error) {
	p := &Pages{csp: policies{
		css:    hashSource(baseCSS),
		splash: hashSource(splashJS),
		pixel:  hashSource(pixelJS),
		frame:  hashSource(frameJS),
	}}
	funcs := template.FuncMap{
		// The assets are our own fixed files; their exact bytes are hashed
		// above, so they must be emitted verbatim.
		"css":    func() template.CSS { return template.CSS(baseCSS) },
		"script": script,
	}
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("parse layout: %w", err)
	}
	for k, file := range templateFiles {
		set, err := template.Must(base.Clone()).ParseFS(templateFS, "templates/"+file)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", file, err)
		}
		p.sets[k] = set
	}
	var start strings.Builder
	if err := p.sets[kindPreview].ExecuteTemplate(&start, "start", nil); err != nil {
		return nil, fmt.Errorf("render start: %w", err)
	}
	p.start = start.String()
	p.headers = p.staticHeaders()
	return p, nil
}

// MustNew is New for start-up code: it panics on error (the templates are
// embedded, so an error is a build defect).
func MustNew() *Pages {
	p, err := New()
	if err != nil {
		panic(err)
	}
	return p
}

// script returns a fixed inline script by name, verbatim.
func script(name string) (template.JS, error) {
	switch name {
	case "splash":
		return template.JS(splashJS), nil
	case "pixel":
		return template.JS(pixelJS), nil
	case "frame":
		return template.JS(frameJS), nil
	}
	return "", fmt.Errorf("unknown script %q", name)
}

// Render validates d and writes its page to w. It returns ErrUnsafeURL
// (wrapped) before writing anything when the page's required destination
// is not http(s). Render into a buffer (fasthttp's response body is one)
// and discard it on error: an execution error may leave partial output.
func (p *Pages) Render(w io.Writer, d Data) error {
	if d == nil {
		return errors.New("render: nil page data")
	}
	if pd, ok := d.(*PreviewPage); ok {
		b, err := p.AppendPreview(nil, pd)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	v, err := view(d)
	if err != nil {
		return fmt.Errorf("render %s: %w", templateFiles[d.kind()], err)
	}
	if err := p.sets[d.kind()].ExecuteTemplate(w, "page", v); err != nil {
		return fmt.Errorf("render %s: %w", templateFiles[d.kind()], err)
	}
	return nil
}

package dashboard

import (
	"bytes"
	"html/template"
	"net/http"
)

// The live preview of a splash page or overlay form: the page the edge
// renders for a link using it, rendered by the edge's own code
// (shared/visitorpage) from the form's values, in an iframe of the form.
//
// Safety: the values are checked by the API's field checks (api.
// OverlayDraft, SplashDraft) and escaped by the edge's templates; the
// document carries the edge's own CSP plus `sandbox allow-scripts` and
// `frame-ancestors 'self'` (visitorpage.EmbedHeaders), and the iframe is
// sandboxed too: an opaque origin that can neither reach the dashboard
// nor navigate it, open windows or post forms. It answers only as a
// frame (Sec-Fetch-Dest), so a link to it cannot put words on a page of
// its own. The visit "goes on" to a page of the dashboard standing in for
// the destination, and a splash image is a stand-in too: the preview
// loads nothing from other hosts, as the rest of the dashboard.

// previewDestinationPath stands in for a link's destination.
const previewDestinationPath = "/preview/destination"

func (s *Server) vpPreview(k *vpKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c *call) error {
		if dest := r.Header.Get("Sec-Fetch-Dest"); dest != "iframe" {
			return errNotFound
		}
		q := r.URL.Query()
		f := newForm()
		for _, n := range k.fields {
			f.Values[n] = q.Get(n)
		}
		origin := previewOrigin(r, c)
		image, err := s.assets.url("preview-image.svg")
		if err != nil {
			return err
		}
		d := k.page(f, origin+previewDestinationPath, origin+image)
		var buf bytes.Buffer
		if err := s.visitor.Render(&buf, d); err != nil {
			return err
		}
		h := w.Header()
		for _, hd := range s.visitor.EmbedHeaders(d) {
			h.Set(hd.Name, hd.Value)
		}
		h.Set("Referrer-Policy", "no-referrer")
		w.WriteHeader(d.Status())
		_, err = w.Write(buf.Bytes())
		return err
	}
}

// previewOrigin is the dashboard's own scheme and host, as the browser
// reached it: the pages' addresses must be absolute http(s) URLs.
func previewOrigin(r *http.Request, c *call) string {
	if c.https {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// allowPreviewFrame lets a page frame the dashboard's own previews: the
// page policy with frame-src 'self' added.
func allowPreviewFrame(h http.Header, nonce string) {
	h.Set("Content-Security-Policy", pageCSP(nonce, nil, "; frame-src 'self'"))
}

// previewDestinationPage is the stand-in destination, static: it holds
// no user text and no script, so it may be framed by the previews (whose
// origin is opaque: no frame-ancestors can name it).
var previewDestinationPage = template.Must(template.New("dest").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Your link's destination</title><link rel="stylesheet" href="{{.}}"></head>
<body class="dest-mock"><div class="dest-mock-bar" aria-hidden="true"></div>
<main class="dest-mock-main"><p class="dest-mock-kicker">Preview</p><h1>Your link's destination</h1>
<p>Visitors see the page your link points to here.</p>
<div class="dest-mock-lines" aria-hidden="true"><span></span><span></span><span></span><span></span></div></main></body></html>
`))

func (s *Server) previewDestination(w http.ResponseWriter, r *http.Request) {
	css, err := s.assets.url("app.css")
	var buf bytes.Buffer
	if err == nil {
		err = previewDestinationPage.Execute(&buf, css)
	}
	if err != nil {
		s.log.Error("dashboard: preview destination", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; sandbox")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	w.Write(buf.Bytes()) //nolint:errcheck // the client went away
}

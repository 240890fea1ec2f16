package dashboard

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"image"
	"net/http"
	"strconv"
	"strings"
	"time"

	"kurz/admin/internal/api"
	"kurz/shared/link"
	"kurz/shared/qrcode"
)

// QR code pages: the list (scans from ClickHouse through api.QRTotals,
// "—" while it cannot be read), the create form (api.Server.AddQR: the
// API's validation and write path) with a live preview, and PNG/SVG
// downloads. Images are drawn here with shared/qrcode, the edge's
// renderer, from the stored content: a preview before saving has no code
// yet, and downloads must not depend on the edge being reachable from the
// browser.

const qrsPerPage = 25

// qrRow is one row of the list.
type qrRow struct {
	ID      int64
	Name    string
	Type    string
	Content string // what a scan gives: the target for link codes
	Scans   *uint64
	Created time.Time
	Public  string // the edge's image URL, for printing
}

type qrsData struct {
	Rows      []qrRow
	StatsDown bool
	Page      int
	PrevURL   string
	NextURL   string
	Total     int
}

func (s *Server) qrsPage(w http.ResponseWriter, r *http.Request, c *call) error {
	page, err := listPage(r)
	if err != nil {
		return err
	}
	qrs, total, err := s.store.ListQRs(r.Context(), c.user.ID, qrsPerPage, (page-1)*qrsPerPage)
	if err != nil {
		return err
	}
	totals, up, err := s.api.QRTotals(r.Context(), qrs)
	if err != nil {
		return err
	}
	d := qrsData{StatsDown: !up, Page: page, Total: total}
	for _, q := range qrs {
		row := qrRow{ID: q.ID, Name: q.Name, Type: qrTypeLabel(q.Type), Content: q.Content, Created: q.CreatedAt,
			Public: link.QRImageURL(s.cfg.BaseURL, q.Code)}
		if q.Type == qrcode.TypeLink {
			row.Content = q.TargetURL
		}
		if up {
			n := totals[q.ID].Clicks
			row.Scans = &n
		}
		d.Rows = append(d.Rows, row)
	}
	d.PrevURL, d.NextURL = pagerURLs("/qr", page, qrsPerPage, total)
	s.render(w, r, c, http.StatusOK, "qrs", "QR codes", d)
	return nil
}

func qrTypeLabel(typ string) string {
	for _, t := range qrTypeSpecs {
		if t.Type == typ {
			return t.Label
		}
	}
	return typ
}

// qrFormData is the create and edit page's.
type qrFormData struct {
	Form    *form
	Types   []qrTypeView
	Preview *qrPreview
	Edit    bool
	Action  string // the edit form's address
	HasLogo bool   // the edited code has a logo
}

// qrPreview is the preview image, or why there is none.
type qrPreview struct {
	Image   template.URL // data: URI of a PNG drawn here (trusted: base64 of our bytes)
	Problem string
	Logo    bool // a logo is given; the preview does not fetch it
}

func (s *Server) newQRPage(w http.ResponseWriter, r *http.Request, c *call) error {
	f := newQRForm()
	return s.showQRForm(w, r, c, f, s.qrPreviewOf(r, c, f))
}

func (s *Server) showQRForm(w http.ResponseWriter, r *http.Request, c *call, f *form, p *qrPreview) error {
	s.render(w, r, c, f.Status, "qrform", "New QR code", qrFormData{Form: f, Types: qrTypeViews(f), Preview: p})
	return nil
}

func (s *Server) createQR(w http.ResponseWriter, r *http.Request, c *call) error {
	f := readForm(r, qrFormFields...)
	if f.Val("do") == "preview" {
		previewLosesFile(r, f)
		return s.showQRForm(w, r, c, f, s.qrPreviewOf(r, c, f))
	}
	in := qrInput(f)
	fromFile := logoFromForm(r, f, &in.Logo)
	if !f.Failed() {
		q, err := s.api.AddQR(r.Context(), c.user, in)
		if err == nil {
			s.setFlash(w, c, flash{Kind: flashOK, Text: "QR code “" + q.Name + "” created."})
			http.Redirect(w, r, "/qr", http.StatusSeeOther)
			return nil
		}
		if !f.refuse(err, logoFieldMap(qrFieldMap(f.Val("type")), fromFile)) {
			return err
		}
	}
	fileLost(f, fromFile)
	return s.showQRForm(w, r, c, f, s.qrPreviewOf(r, c, f))
}

// qrPreviewOf checks the form with the API's checks (api.CheckQR: all of
// AddQR's but the logo, which is not fetched for a preview) and draws it.
func (s *Server) qrPreviewOf(r *http.Request, c *call, f *form) *qrPreview {
	p := &qrPreview{Logo: f.Val("logo") != ""}
	plan, err := s.api.CheckQR(r.Context(), c.user, qrInput(f))
	if err != nil {
		p.Problem = qrProblem(err, f.Val("type"))
		return p
	}
	png, err := renderQR(plan.Text, plan.Foreground, plan.Background, nil, qrcode.FormatPNG, 240)
	if err != nil {
		p.Problem = "The preview cannot be drawn: " + err.Error()
		return p
	}
	p.Image = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png)) //nolint:gosec // our own PNG, base64
	return p
}

// qrProblem is a refusal in the preview's words: the field's label and
// the API's rule.
func qrProblem(err error, typ string) string {
	var ae *api.Error
	if !errors.As(err, &ae) {
		return "The preview is not available right now."
	}
	name, rule, ok := strings.Cut(ae.Message, ": ")
	if !ok {
		return sentence(ae.Message) + "."
	}
	label := map[string]string{"type": "Type", "name": "Name", "foreground": "Colour", "background": "Background", "logo": "Logo"}[name]
	for _, t := range qrTypeSpecs {
		for _, fs := range t.Fields {
			if t.Type == typ && (name == "data."+fs.Key || name == "data" && fs.Key == t.Fields[0].Key) {
				label = fs.Label
			}
		}
	}
	if label == "" {
		label = name
	}
	return label + ": " + rule + "."
}

// qrPreviewFragment answers the script's POST /qr/preview.
func (s *Server) qrPreviewFragment(w http.ResponseWriter, r *http.Request, c *call) error {
	f := readForm(r, qrFormFields...)
	var buf bytes.Buffer
	if err := s.pages.sets["qrform"].ExecuteTemplate(&buf, "qrpreview", qrFormData{Form: f, Preview: s.qrPreviewOf(r, c, f)}); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, err := w.Write(buf.Bytes())
	return err
}

// qrImage serves a stored code of the caller as PNG or SVG
// (/qr/{id}/image.png?size=&download=1), drawn as the edge draws it.
func (s *Server) qrImage(w http.ResponseWriter, r *http.Request, c *call) error {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return errNotFound
	}
	ext, ok := strings.CutPrefix(r.PathValue("file"), "image.")
	if !ok || (ext != "png" && ext != "svg") {
		return errNotFound
	}
	format, err := qrcode.ParseFormat(ext)
	if err != nil {
		return errNotFound
	}
	size := qrcode.DefaultSize
	if v := r.URL.Query().Get("size"); v != "" {
		if size, err = strconv.Atoi(v); err != nil || size < qrcode.MinSize || size > qrcode.MaxSize {
			return &pageError{status: http.StatusBadRequest, title: "Bad size",
				text: fmt.Sprintf("The size must be %d to %d pixels.", qrcode.MinSize, qrcode.MaxSize)}
		}
	}
	q, err := s.store.QRByID(r.Context(), c.user.ID, id)
	if errors.Is(err, link.ErrNotFound) {
		return errNotFound
	}
	if err != nil {
		return err
	}
	var logo image.Image
	if q.HasLogo {
		// The list's reads never load logo bytes; the edge's read does.
		eq, err := s.store.EdgeQRByCode(r.Context(), q.Code)
		if err != nil {
			return err
		}
		if logo, err = qrcode.LoadLogo(eq.Logo); err != nil {
			return err
		}
	}
	body, err := renderQR(q.Content, q.Foreground, q.Background, logo, format, size)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", format.ContentType())
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	if r.URL.Query().Get("download") != "" {
		h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="qr-%d.%s"`, q.ID, ext))
	}
	_, err = w.Write(body)
	return err
}

// renderQR draws content; a size too small for the content grows to the
// smallest that works, as the edge does.
func renderQR(content, fg, bg string, logo image.Image, format qrcode.Format, size int) ([]byte, error) {
	fgc, err := qrcode.ParseRGB(fg)
	if err != nil {
		fgc = qrcode.DefaultForeground
	}
	bgc, err := qrcode.ParseRGB(bg)
	if err != nil {
		bgc = qrcode.DefaultBackground
	}
	opt := qrcode.Options{Format: format, Size: size, Foreground: fgc, Background: bgc, Logo: logo}
	body, err := qrcode.Render(content, opt)
	var se *qrcode.SizeError
	if errors.As(err, &se) && se.Min > opt.Size && se.Min <= qrcode.MaxSize {
		opt.Size = se.Min
		body, err = qrcode.Render(content, opt)
	}
	return body, err
}

// ownQR loads the path's QR code if it is the caller's; any other id
// (malformed, unknown, another user's) is the same 404.
func (s *Server) ownQR(r *http.Request, c *call) (*link.QR, error) {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return nil, errNotFound
	}
	q, err := s.store.QRByID(r.Context(), c.user.ID, id)
	if errors.Is(err, link.ErrNotFound) {
		return nil, errNotFound
	}
	return q, err
}

func (s *Server) deleteQRPage(w http.ResponseWriter, r *http.Request, c *call) error {
	q, err := s.ownQR(r, c)
	if err != nil {
		return err
	}
	s.render(w, r, c, http.StatusOK, "qrdelete", "Delete QR code", q)
	return nil
}

// deleteQR deletes through api.Server.DeleteQR, what DELETE /api/qr/:id
// calls.
func (s *Server) deleteQR(w http.ResponseWriter, r *http.Request, c *call) error {
	q, err := s.ownQR(r, c)
	if err != nil {
		return err
	}
	if err := s.api.DeleteQR(r.Context(), c.user, q.ID); err != nil {
		return err // deleted by a concurrent request: the API's 404, the 404 page
	}
	s.setFlash(w, c, flash{Kind: flashOK, Text: "QR code “" + q.Name + "” deleted. Printed copies no longer work."})
	http.Redirect(w, r, "/qr", http.StatusSeeOther)
	return nil
}

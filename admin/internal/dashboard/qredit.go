package dashboard

import (
	"encoding/json"
	"fmt"
	"image/color"
	"net/http"
	"strconv"
	"strings"

	"kurz/shared/link"
	"kurz/shared/qrcode"
)

// Editing a QR code (api.Server.UpdateQR, what PUT /api/qr/:id/update
// calls: the code and its type stay, printed copies keep working) and a
// code's scan statistics (the link statistics page over the QR reads,
// what GET /api/qr/:id answers).

func (s *Server) editQRPage(w http.ResponseWriter, r *http.Request, c *call) error {
	q, err := s.ownQR(r, c)
	if err != nil {
		return err
	}
	f := qrFormOf(q)
	return s.showQREdit(w, r, c, f, q)
}

func (s *Server) showQREdit(w http.ResponseWriter, r *http.Request, c *call, f *form, q *link.QR) error {
	d := qrFormData{Form: f, Types: qrTypeViews(f), Preview: s.qrPreviewOf(r, c, f), Edit: true,
		Action: "/qr/" + strconv.FormatInt(q.ID, 10) + "/edit", HasLogo: q.HasLogo}
	s.render(w, r, c, f.Status, "qrform", "Edit QR code", d)
	return nil
}

// qrEditFields are the edit form's: the create form's and the logo's
// removal.
var qrEditFields = append(append([]string(nil), qrFormFields...), "logo_remove")

// saveQR saves the posted edit through api.Server.UpdateQR. The type is
// the stored one whatever was posted; name, data and colours are always
// sent (an emptied name is refused as the API refuses it); the logo is
// kept unless a new one is given or its removal checked.
func (s *Server) saveQR(w http.ResponseWriter, r *http.Request, c *call) error {
	q, err := s.ownQR(r, c)
	if err != nil {
		return err
	}
	f := readForm(r, qrEditFields...)
	f.Values["type"] = q.Type
	if f.Val("do") == "preview" {
		previewLosesFile(r, f)
		return s.showQREdit(w, r, c, f, q)
	}
	in := qrInput(f)
	in.Type = nil
	name, fg, bg := strings.TrimSpace(f.Val("name")), strings.TrimSpace(f.Val("foreground")), strings.TrimSpace(f.Val("background"))
	in.Name, in.Foreground, in.Background = &name, &fg, &bg
	fromFile := logoFromForm(r, f, &in.Logo)
	if f.Val("logo_remove") != "" {
		if fromFile {
			f.fail("logo_file", "pick a new logo or remove the logo, not both", http.StatusBadRequest)
		}
		none := ""
		in.Logo = &none
	}
	if !f.Failed() {
		err := s.api.UpdateQR(r.Context(), c.user, q, in)
		if err == nil {
			s.setFlash(w, c, flash{Kind: flashOK, Text: "QR code “" + name + "” saved. Printed copies show the new content when scanned; link codes keep their address."})
			http.Redirect(w, r, "/qr", http.StatusSeeOther)
			return nil
		}
		if !f.refuse(err, logoFieldMap(qrFieldMap(q.Type), fromFile)) {
			return err
		}
	}
	fileLost(f, fromFile)
	return s.showQREdit(w, r, c, f, q)
}

// qrFormOf is the form of a stored code: its data object read back into
// the fields of its type, its colours as #rrggbb.
func qrFormOf(q *link.QR) *form {
	f := newQRForm()
	f.Values["type"], f.Values["name"] = q.Type, q.Name
	f.Values["foreground"] = hexOf(q.Foreground, qrcode.DefaultForeground)
	f.Values["background"] = hexOf(q.Background, qrcode.DefaultBackground)
	for _, t := range qrTypeSpecs {
		if t.Type != q.Type {
			continue
		}
		if t.Fields[0].Key == "data" {
			var v string
			if json.Unmarshal(q.Data, &v) == nil {
				f.Values[t.Type+"_data"] = v
			}
			if q.Type == qrcode.TypeLink {
				f.Values[t.Type+"_data"] = q.TargetURL
			}
			break
		}
		var obj map[string]any
		_ = json.Unmarshal(q.Data, &obj) // the API stored it: an object of its type
		for _, fs := range t.Fields {
			switch v := obj[fs.Key].(type) {
			case string:
				f.Values[t.Type+"_"+fs.Key] = v
			case bool:
				if v {
					f.Values[t.Type+"_"+fs.Key] = "1"
				}
			case float64:
				f.Values[t.Type+"_"+fs.Key] = strconv.FormatFloat(v, 'f', -1, 64)
			}
		}
	}
	return f
}

// hexOf is a stored colour ("rgb(r,g,b)") as a colour input's #rrggbb.
func hexOf(stored string, def color.RGBA) string {
	c, err := qrcode.ParseRGB(stored)
	if err != nil {
		c = def
	}
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// qrStatsPage is a code's scans over a range, on the link statistics
// page. Only link codes send scans through the service (/q/{code}); the
// others hold their content itself, so the page says so instead.
func (s *Server) qrStatsPage(w http.ResponseWriter, r *http.Request, c *call) error {
	q, err := s.ownQR(r, c)
	if err != nil {
		return err
	}
	subject := statsSubject{Path: "/qr/" + strconv.FormatInt(q.ID, 10), Name: q.Name, Target: q.Content,
		EditLabel: "Edit QR code", Counted: "Scans", Title: "Scans of " + q.Name}
	if q.Type != qrcode.TypeLink {
		d := statsData{Subject: subject, NotCounted: "Scans of a " + strings.ToLower(qrTypeLabel(q.Type)) +
			" code are not counted: the code holds its content itself, so a scan never reaches this service. " +
			"Only link codes, which go through their own address, count scans."}
		d.Subject.EditURL = subject.Path + "/edit"
		s.render(w, r, c, http.StatusOK, "stats", "Scans of "+q.Name, d)
		return nil
	}
	subject.Target = q.TargetURL
	return s.showStats(w, r, c, subject, q.ID, s.qrReads())
}

func (s *Server) qrStatsCSV(w http.ResponseWriter, r *http.Request, c *call) error {
	q, err := s.ownQR(r, c)
	if err != nil {
		return err
	}
	return s.writeStatsCSV(w, r, "kurz-qr-"+strconv.FormatInt(q.ID, 10), q.ID, s.qrReads())
}

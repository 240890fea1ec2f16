package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"net/http"
	"net/url"
	"strings"

	"kurz/admin/internal/safefetch"
	"kurz/shared/click"
	"kurz/shared/link"
	"kurz/shared/qrcode"
	"kurz/shared/secret"
)

// QR codes: spec 2.11 and 4.8, plus the update and delete endpoints the
// spec leaves open. Images are not made here: the edge renders the stored
// content at /qr/{code}; this file validates, computes what to encode and
// stores it.

func (s *Server) qrRoutes() {
	s.handle(s.api, "/api/qr", Methods{http.MethodGet: s.listQRs})
	s.handle(s.api, "/api/qr/add", Methods{http.MethodPost: s.addQR})
	s.handle(s.api, "/api/qr/{id}", Methods{http.MethodGet: s.getQR})
	s.handle(s.api, "/api/qr/{id}/update", Methods{http.MethodPut: s.updateQR})
	s.handle(s.api, "/api/qr/{id}/delete", Methods{http.MethodDelete: s.deleteQR})
}

func (s *Server) listQRs(w http.ResponseWriter, r *http.Request, u *link.User) error {
	page, err := ParsePage(r)
	if err != nil {
		return err
	}
	qrs, total, err := s.store.ListQRs(r.Context(), u.ID, page.Limit, page.Offset())
	if err != nil {
		return err
	}
	// Scans are in ClickHouse; while it is down the list still answers,
	// with null scans (docs/api.md).
	ids := make([]int64, len(qrs))
	for i := range qrs {
		ids[i] = qrs[i].ID
	}
	statsUp := true
	totals, err := s.pageTotals(r.Context(), click.KindQR, ids, false)
	if statsDown(err) {
		statsUp = false
	} else if err != nil {
		return err
	}
	rows := make([]map[string]any, 0, len(qrs))
	for _, q := range qrs {
		rows = append(rows, map[string]any{
			"id":    q.ID,
			"link":  link.QRImageURL(s.cfg.BaseURL, q.Code),
			"scans": count(statsUp, totals[q.ID].Clicks),
			"name":  q.Name,
			"date":  link.FormatTime(q.CreatedAt),
		})
	}
	return ListExtra(w, page, total, "qrs", rows, map[string]any{"statsAvailable": statsUp})
}

func (s *Server) getQR(w http.ResponseWriter, r *http.Request, u *link.User) error {
	q, err := s.ownQR(r, u)
	if err != nil {
		return err
	}
	data, err := s.qrStatsData(r.Context(), q.ID)
	if err != nil {
		return err
	}
	details := map[string]any{
		"id":    q.ID,
		"link":  link.QRImageURL(s.cfg.BaseURL, q.Code),
		"scans": data["clicks"], // the same all-time human scans, or null while they cannot be read
		"name":  q.Name,
		"date":  link.FormatTime(q.CreatedAt),
		// extensions
		"type":       q.Type,
		"data":       q.Data,
		"content":    q.Content,
		"target":     q.TargetURL,
		"background": q.Background,
		"foreground": q.Foreground,
		"has_logo":   q.HasLogo,
		"channel":    idOrZero(q.ChannelID),
	}
	return OK(w, map[string]any{"details": details, "data": data})
}

// ownQR loads the caller's QR code named by the path; garbage ids, unknown
// ids and other users' ids are the same 404.
func (s *Server) ownQR(r *http.Request, u *link.User) (*link.QR, error) {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return nil, NotFound("qr code")
	}
	q, err := s.store.QRByID(r.Context(), u.ID, id)
	if errors.Is(err, link.ErrNotFound) {
		return nil, NotFound("qr code")
	}
	return q, err
}

// qrInput is the body of add and update. Pointers tell absent from empty;
// Data stays raw because its shape depends on the type.
type qrInput struct {
	Type       *string         `json:"type"`
	Data       json.RawMessage `json:"data"` // JSON null is reset to nil: "not sent"
	Background *string         `json:"background"`
	Foreground *string         `json:"foreground"`
	Logo       *string         `json:"logo"`
	Name       *string         `json:"name"`
}

// decode reads the body; a raw field keeps JSON null as the bytes "null",
// which clients send for "not set", so it is cleared here.
func (in *qrInput) decode(w http.ResponseWriter, r *http.Request) error {
	if err := Decode(w, r, in); err != nil {
		return err
	}
	if string(in.Data) == "null" {
		in.Data = nil
	}
	return nil
}

const qrTypes = "text, vcard, link, email, phone, sms, wifi"

func (s *Server) addQR(w http.ResponseWriter, r *http.Request, u *link.User) error {
	var in qrInput
	if err := in.decode(w, r); err != nil {
		return err
	}
	q, err := s.AddQR(r.Context(), u, &in)
	if err != nil {
		return err
	}
	return OK(w, map[string]any{"id": q.ID, "link": link.QRImageURL(s.cfg.BaseURL, q.Code)})
}

// QRInput is the body of POST /api/qr/add (and of the update). The
// dashboard's QR form fills one too, so both go through AddQR: one
// validation, one write path.
type QRInput = qrInput

// QRPlan is a checked QR code before it is stored: what it encodes and
// its colours. Text is the real content except for link codes, whose
// tracking URL needs the code: there it is a stand-in of the same length.
type QRPlan struct {
	Type, Name, Text, TargetURL string
	Data                        json.RawMessage
	Foreground, Background      string // stored form, "rgb(r,g,b)"
}

// CheckQR runs AddQR's checks of in except the logo (which AddQR fetches
// and decodes): type, data, the loop check, name, colours and the fit
// without a logo. The dashboard's live preview uses it.
func (s *Server) CheckQR(ctx context.Context, u *link.User, in *QRInput) (QRPlan, error) {
	if in.Type == nil {
		return QRPlan{}, BadRequest("type", "required: one of "+qrTypes)
	}
	typ := strings.ToLower(strings.TrimSpace(*in.Type))
	content, data, err := qrData(typ, in.Data)
	if err != nil {
		return QRPlan{}, err
	}
	if err := s.refuseQRLoop(ctx, u.ID, "", content.TargetURL); err != nil {
		return QRPlan{}, err
	}
	name := "QR " + typ
	if in.Name != nil && strings.TrimSpace(*in.Name) != "" {
		if name, err = qrName(*in.Name); err != nil {
			return QRPlan{}, err
		}
	}
	fg, bg, err := qrColours(qrcode.DefaultForeground, qrcode.DefaultBackground, in.Foreground, in.Background)
	if err != nil {
		return QRPlan{}, err
	}
	text := content.Text
	if typ == qrcode.TypeLink {
		// Every code has the same length, so a stand-in code measures the
		// real tracking URL.
		text = link.QRScanURL(s.cfg.BaseURL, strings.Repeat("0", link.QRCodeLen))
	}
	return QRPlan{Type: typ, Name: name, Text: text, TargetURL: content.TargetURL, Data: data,
		Foreground: fg, Background: bg}, nil
}

// AddQR validates in and creates the caller's QR code. Refusals are
// *Error values naming the field.
func (s *Server) AddQR(ctx context.Context, u *link.User, in *QRInput) (*link.QR, error) {
	p, err := s.CheckQR(ctx, u, in)
	if err != nil {
		return nil, err
	}
	// The fetch is the slow, outbound part: it runs last, after every cheap
	// check passed, and before the transaction, so no lock waits on it.
	var logo []byte
	if in.Logo != nil {
		if logo, err = s.qrLogo(ctx, *in.Logo); err != nil {
			return nil, err
		}
	}
	if err := qrcode.CheckFit(p.Text, logo != nil); err != nil {
		return nil, qrInvalid(err)
	}
	content := p.Text
	if p.Type == qrcode.TypeLink {
		content = ""
	}
	q := &link.QR{
		UserID: u.ID, Name: p.Name, Type: p.Type, Data: p.Data, Content: content, TargetURL: p.TargetURL,
		Background: p.Background, Foreground: p.Foreground, Logo: logo,
	}
	err = s.store.CreateQR(ctx, q, func(q *link.QR) {
		q.Code = secret.RandomString(link.QRCodeLen)
		if q.Type == qrcode.TypeLink {
			q.Content = link.QRScanURL(s.cfg.BaseURL, q.Code)
		}
	})
	if err != nil {
		return nil, err
	}
	return q, nil
}

// qrData validates data for typ and returns what to encode and the data in
// its stored (compact JSON) form.
func qrData(typ string, raw json.RawMessage) (qrcode.Content, json.RawMessage, error) {
	c, err := qrcode.BuildContent(typ, raw)
	if err != nil {
		return c, nil, qrInvalid(err)
	}
	if c.TargetURL != "" {
		// The edge redirects only to targets link.ValidURL accepts; refuse
		// here what it would refuse there, so no code is born dead.
		if _, err := link.ValidURL(c.TargetURL); err != nil {
			return c, nil, BadRequest("data", err.Error())
		}
	}
	stored, err := storedJSON(raw)
	if err != nil {
		return c, nil, err
	}
	return c, stored, nil
}

// storedJSON is raw re-encoded from its decoded value, as the data column
// keeps it. Not the client's bytes: PostgreSQL's jsonb refuses escapes
// that Go's decoder accepts (a lone surrogate such as \ud800 decodes to
// U+FFFD here and is an error there). NUL, which jsonb cannot hold either,
// never gets here: qrcode.BuildContent refuses control characters.
func storedJSON(raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil { // unreachable: Decode checked the JSON
		return nil, BadRequest("data", "must be valid JSON")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode qr data: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// qrName checks a QR code's name: 1–100 characters of plain text.
func qrName(raw string) (string, error) {
	name := strings.TrimSpace(raw)
	if name == "" {
		return "", BadRequest("name", "must not be empty")
	}
	if err := link.ValidText(name, link.MaxQRName, false); err != nil {
		return "", BadRequest("name", err.Error())
	}
	return name, nil
}

// qrInvalid turns a *qrcode.ValidationError into a 400 naming its field;
// anything else is an internal error.
func qrInvalid(err error) error {
	var ve *qrcode.ValidationError
	if errors.As(err, &ve) {
		return BadRequest(ve.Field, ve.Rule)
	}
	return err
}

func (s *Server) updateQR(w http.ResponseWriter, r *http.Request, u *link.User) error {
	cur, err := s.ownQR(r, u)
	if err != nil {
		return err
	}
	var in qrInput
	if err := in.decode(w, r); err != nil {
		return err
	}
	if err := s.UpdateQR(r.Context(), u, cur, &in); err != nil {
		return err
	}
	return Message(w, "qr code updated")
}

// UpdateQR checks in as PUT /api/qr/:id/update does and changes the sent
// fields of cur, the caller's QR code (loaded by the caller as its own):
// name, data (of its type, which never changes), colours and logo ("" =
// none; fetched as on add). Deleted meanwhile is a 404 error.
func (s *Server) UpdateQR(ctx context.Context, u *link.User, cur *link.QR, in *QRInput) error {
	if in.Type != nil {
		return BadRequest("type", "cannot be changed; create a new QR code")
	}
	var (
		content qrcode.Content
		data    json.RawMessage
		err     error
	)
	if in.Data != nil {
		// The type never changes, so validating against the loaded record
		// stays valid inside the transaction.
		if content, data, err = qrData(cur.Type, in.Data); err != nil {
			return err
		}
		if err := s.refuseQRLoop(ctx, u.ID, cur.Code, content.TargetURL); err != nil {
			return err
		}
	}
	var name string
	if in.Name != nil {
		if name, err = qrName(*in.Name); err != nil {
			return err
		}
	}
	// Colour syntax is checked now; contrast needs the locked record's
	// colours and is checked in the transaction.
	for _, c := range []struct {
		field string
		v     *string
	}{{"background", in.Background}, {"foreground", in.Foreground}} {
		if c.v != nil && strings.TrimSpace(*c.v) != "" {
			if _, err := qrcode.ParseRGB(*c.v); err != nil {
				return BadRequest(c.field, err.Error())
			}
		}
	}
	var logo []byte
	if in.Logo != nil {
		if logo, err = s.qrLogo(ctx, *in.Logo); err != nil {
			return err
		}
	}
	err = s.store.UpdateQR(ctx, u.ID, cur.ID, func(q *link.QR) error {
		if in.Name != nil {
			q.Name = name
		}
		if in.Data != nil {
			q.Data = data
			if q.Type == qrcode.TypeLink {
				q.TargetURL = content.TargetURL // Content stays the code's own /q/ URL
			} else {
				q.Content = content.Text
			}
		}
		if in.Foreground != nil || in.Background != nil {
			fg, bg, err := qrColours(storedRGB(q.Foreground, qrcode.DefaultForeground),
				storedRGB(q.Background, qrcode.DefaultBackground), in.Foreground, in.Background)
			if err != nil {
				return err
			}
			q.Foreground, q.Background = fg, bg
		}
		if in.Logo != nil {
			q.Logo, q.HasLogo = logo, logo != nil
		}
		return qrInvalid(qrcode.CheckFit(q.Content, q.HasLogo))
	})
	if errors.Is(err, link.ErrNotFound) { // deleted since it was loaded
		return NotFound("qr code")
	}
	return err
}

func (s *Server) deleteQR(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return NotFound("qr code")
	}
	if err := s.DeleteQR(r.Context(), u, id); err != nil {
		return err
	}
	return Message(w, "qr code deleted")
}

// DeleteQR deletes the user's QR code id as DELETE /api/qr/:id/delete
// does: its scans stop working, printed copies included.
func (s *Server) DeleteQR(ctx context.Context, u *link.User, id int64) error {
	err := s.store.DeleteQR(ctx, u.ID, id)
	if errors.Is(err, link.ErrNotFound) {
		return NotFound("qr code")
	}
	return err
}

// qrColours applies the sent colours (nil: keep cur; "": the default) to
// the current pair, checks the contrast and returns both in stored form.
// A contrast error names the field the caller sent: the foreground when it
// was sent, else the background that broke the pair.
func qrColours(curFG, curBG color.RGBA, fgIn, bgIn *string) (fg, bg string, err error) {
	fgc, err := qrColour("foreground", fgIn, curFG, qrcode.DefaultForeground)
	if err != nil {
		return "", "", err
	}
	bgc, err := qrColour("background", bgIn, curBG, qrcode.DefaultBackground)
	if err != nil {
		return "", "", err
	}
	if err := qrcode.CheckContrast(fgc, bgc); err != nil {
		var ve *qrcode.ValidationError
		if fgIn == nil && errors.As(err, &ve) {
			return "", "", BadRequest("background", "does not work with the current foreground "+
				qrcode.FormatRGB(fgc)+": foreground "+ve.Rule)
		}
		return "", "", qrInvalid(err)
	}
	return qrcode.FormatRGB(fgc), qrcode.FormatRGB(bgc), nil
}

// qrColour parses one sent colour; nil keeps cur, "" means def.
func qrColour(field string, in *string, cur, def color.RGBA) (color.RGBA, error) {
	switch {
	case in == nil:
		return cur, nil
	case strings.TrimSpace(*in) == "":
		return def, nil
	}
	c, err := qrcode.ParseRGB(*in)
	if err != nil {
		return c, BadRequest(field, err.Error())
	}
	return c, nil
}

// storedRGB parses a stored colour; the API only ever stores valid ones,
// so def is a fallback for rows written by hand.
func storedRGB(s string, def color.RGBA) color.RGBA {
	if c, err := qrcode.ParseRGB(s); err == nil {
		return c
	}
	return def
}

// errLogoSource is the rule for a logo that is neither a web URL nor a
// data: URI. Server-side paths (and file:, ftp:, …) are never read.
const errLogoSource = "must be an http(s) URL or a data:image/png|jpeg;base64 URI"

// qrLogo turns the logo field into the stored logo; "" means no logo
// (nil). A URL is fetched with the request's context through safefetch
// (public addresses only, 1 MiB, 5 s); a data: URI is decoded. Either way
// the bytes are decoded here, once (dimensions checked from the header
// first), and stored pre-scaled as a small PNG (qrcode.PrepareLogo), so the
// edge never decodes a large image and its cached QR entry stays bounded.
func (s *Server) qrLogo(ctx context.Context, raw string) ([]byte, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, nil
	}
	var b []byte
	if qrcode.IsDataURI(raw) {
		var err error
		if b, err = qrcode.ParseDataURI(raw); err != nil {
			return nil, qrInvalid(err)
		}
	} else {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, BadRequest("logo", errLogoSource)
		}
		if b, err = s.fetchLogo(ctx, raw); err != nil {
			return nil, err
		}
	}
	stored, err := s.prepareLogo(ctx, b)
	if err != nil {
		return nil, qrInvalid(err)
	}
	return stored, nil
}

// fetchLogo downloads a logo URL. Fetch errors become fixed messages: the
// underlying error (addresses, DNS answers, TLS details) is only logged,
// so the API cannot be used to probe the network.
func (s *Server) fetchLogo(ctx context.Context, rawURL string) ([]byte, error) {
	body, _, err := safefetch.Fetch(ctx, rawURL, s.logoFetch)
	if err == nil {
		return body, nil
	}
	s.log.Info("qr logo fetch refused or failed", "err", err)
	switch {
	case errors.Is(err, safefetch.ErrAddrNotAllowed):
		return nil, BadRequest("logo", "address not allowed")
	case errors.Is(err, safefetch.ErrTooLarge):
		return nil, BadRequest("logo", "larger than 1 MiB")
	case errors.Is(err, safefetch.ErrBadURL):
		return nil, BadRequest("logo", errLogoSource)
	}
	return nil, BadRequest("logo", "could not be fetched")
}

package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"kurz/admin/internal/stats"
	"kurz/shared/hostname"
	"kurz/shared/link"
	"kurz/shared/pgstore"
	"kurz/shared/secret"
	"kurz/shared/target"
)

// Short links: spec 2.9 and 4.6.

func (s *Server) linkRoutes() {
	s.handle(s.api, "/api/urls", Methods{http.MethodGet: s.listLinks})
	s.handle(s.api, "/api/url/add", Methods{http.MethodPost: s.addLink})
	s.handle(s.api, "/api/url/{id}", Methods{http.MethodGet: s.getLink})
	s.handle(s.api, "/api/url/{id}/update", Methods{http.MethodPut: s.updateLink})
	s.handle(s.api, "/api/url/{id}/delete", Methods{http.MethodDelete: s.deleteLink})
}

// MaxLinkPixels bounds the pixels one link may fire.
const MaxLinkPixels = 50

// linkInput is the write payload of add and update. Pointers tell "absent"
// from "empty"; JSON null counts as absent.
type linkInput struct {
	URL             *string        `json:"url"`
	Custom          *string        `json:"custom"`
	Type            *string        `json:"type"`
	Password        *string        `json:"password"`
	Domain          *string        `json:"domain"`
	Expiry          *string        `json:"expiry"`
	GeoTarget       *geoList       `json:"geotarget"`
	DeviceTarget    *deviceList    `json:"devicetarget"`
	LanguageTarget  *langList      `json:"languagetarget"`
	MetaTitle       *string        `json:"metatitle"`
	MetaDescription *string        `json:"metadescription"`
	MetaImage       *string        `json:"metaimage"`
	Description     *string        `json:"description"`
	Pixels          *pixelList     `json:"pixels"`
	Channel         *int64         `json:"channel"`
	Deeplink        *deeplinkInput `json:"deeplink"`
	Status          *string        `json:"status"`
	Parameters      *paramList     `json:"parameters"`
	Campaign        *int64         `json:"campaign"`
	// Dedupe (add only; default true) returns the caller's existing plain
	// link to the same URL for a request without options.
	Dedupe *bool `json:"dedupe"`
}

type deeplinkInput struct {
	IOSStore     *string `json:"ios_store"`
	AndroidStore *string `json:"android_store"`
}

// LinkInput is the write payload of POST /api/url/add and PUT
// /api/url/{id}/update. The dashboard's link form fills one too, so both
// go through AddLink / UpdateLink: one validation, one write path.
type LinkInput = linkInput

// LinkWrite is what AddLink and UpdateLink did.
type LinkWrite struct {
	Link *link.Link
	// Reused: the add answered the caller's existing plain link (dedupe).
	Reused bool
	// Warnings of the framing check (framing.go); none when not checked.
	Warnings []string
}

func (s *Server) addLink(w http.ResponseWriter, r *http.Request, u *link.User) error {
	var in linkInput
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	res, err := s.AddLink(r.Context(), u, &in)
	if err != nil {
		return err
	}
	// The spec names the short URL "shorturl" here and "short" on update;
	// clients of the original service read "short" from both.
	short := res.Link.ShortURL(s.cfg.BaseURL)
	out := map[string]any{"id": res.Link.ID, "shorturl": short, "short": short}
	addWarnings(out, res.Warnings)
	return OK(w, out)
}

// AddLink validates in and creates the caller's link (or, with dedupe,
// answers their existing plain one), then checks a framed link's
// destinations. Refusals are *Error values naming the field.
func (s *Server) AddLink(ctx context.Context, u *link.User, in *LinkInput) (LinkWrite, error) {
	if in.URL == nil || strings.TrimSpace(*in.URL) == "" {
		return LinkWrite{}, BadRequest("url", "required")
	}
	p, err := s.linkPatch(ctx, u.ID, in, true)
	if err != nil {
		return LinkWrite{}, err
	}
	l := &link.Link{UserID: u.ID, Type: link.TypeDirect, Status: link.StatusPrivate}
	p.Apply(l)
	l.Custom = p.Alias != nil
	reused, err := s.createLink(ctx, l, in.Dedupe == nil || *in.Dedupe)
	if err != nil {
		return LinkWrite{}, linkWriteError(err, in)
	}
	res := LinkWrite{Link: l, Reused: reused}
	if !reused {
		res.Warnings = s.checkFraming(ctx, l)
	}
	return res, nil
}

// createLink stores the new link l. With dedupe and a plain l (only a URL
// and a domain) it returns the caller's existing plain link to the same
// URL on the same domain instead, if there is one, and reports reused.
func (s *Server) createLink(ctx context.Context, l *link.Link, dedupe bool) (reused bool, err error) {
	var next func(int) string
	if !l.Custom {
		next = randomAlias
	}
	if dedupe && l.Plain() {
		return s.store.CreateLinkOrReuse(ctx, l, next)
	}
	return false, s.store.CreateLink(ctx, l, next)
}

// addWarnings adds "warnings" to a write response when there are any.
func addWarnings(out map[string]any, warnings []string) {
	if len(warnings) > 0 {
		out["warnings"] = warnings
	}
}

// randomAlias draws a base62 alias of the attempt's length, never a
// reserved word (62^5 includes "admin" and "login").
func randomAlias(attempt int) string {
	for {
		a := secret.RandomString(link.RandomAliasLenFor(attempt))
		if !link.IsReserved(a) {
			return a
		}
	}
}

func (s *Server) updateLink(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return NotFound("link")
	}
	var in linkInput
	if err := Decode(w, r, &in); err != nil {
		return err
	}
	res, err := s.UpdateLink(r.Context(), u, id, &in)
	if err != nil {
		return err
	}
	out := map[string]any{"id": res.Link.ID, "short": res.Link.ShortURL(s.cfg.BaseURL)}
	addWarnings(out, res.Warnings)
	return OK(w, out)
}

// UpdateLink validates in and applies the fields it carries to the
// caller's link id; another user's or an unknown id is NotFound("link").
func (s *Server) UpdateLink(ctx context.Context, u *link.User, id int64, in *LinkInput) (LinkWrite, error) {
	if in.Dedupe != nil {
		return LinkWrite{}, BadRequest("dedupe", "applies only to POST /api/url/add")
	}
	p, err := s.linkPatch(ctx, u.ID, in, false)
	if err != nil {
		return LinkWrite{}, err
	}
	l, err := s.store.UpdateLink(ctx, u.ID, id, p)
	if err != nil {
		if errors.Is(err, link.ErrNotFound) {
			return LinkWrite{}, NotFound("link")
		}
		return LinkWrite{}, linkWriteError(err, in)
	}
	res := LinkWrite{Link: l}
	// Check again only when the write changed what is framed or where.
	if in.Type != nil || in.URL != nil || in.Domain != nil || in.GeoTarget != nil ||
		in.DeviceTarget != nil || in.LanguageTarget != nil {
		res.Warnings = s.checkFraming(ctx, l)
	}
	return res, nil
}

// linkWriteError maps store errors of a link write to API errors.
func linkWriteError(err error, in *linkInput) error {
	var ref *link.RefError
	switch {
	case errors.As(err, &ref):
		return Errorf(http.StatusBadRequest, "%s", ref.Error())
	case errors.Is(err, link.ErrAliasTaken):
		if in.Custom != nil && *in.Custom != "" {
			return Conflict("custom: alias already taken")
		}
		return Conflict("domain: the link's alias is already taken on that domain; send a new custom alias too")
	}
	return err
}

func (s *Server) deleteLink(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return NotFound("link")
	}
	if err := s.DeleteLinks(r.Context(), u, []int64{id}); err != nil {
		if errors.Is(err, link.ErrNotFound) {
			return NotFound("link")
		}
		return err
	}
	return Message(w, "link deleted")
}

// DeleteLinks deletes u's links ids, all or none: DELETE /api/url/:id/delete
// with one id, the dashboard's bulk delete with several. When any id is
// not one of u's links nothing is deleted and the error wraps
// link.ErrNotFound.
func (s *Server) DeleteLinks(ctx context.Context, u *link.User, ids []int64) error {
	return s.store.DeleteLinks(ctx, u.ID, ids)
}

func (s *Server) getLink(w http.ResponseWriter, r *http.Request, u *link.User) error {
	id, ok := link.ParseID(r.PathValue("id"))
	if !ok {
		return NotFound("link")
	}
	l, err := s.store.LinkByID(r.Context(), u.ID, id)
	if err != nil {
		if errors.Is(err, link.ErrNotFound) {
			return NotFound("link")
		}
		return err
	}
	return s.writeLink(r.Context(), w, l)
}

func (s *Server) listLinks(w http.ResponseWriter, r *http.Request, u *link.User) error {
	q := r.URL.Query()
	if q.Has("short") {
		return s.searchLink(w, r, u, q.Get("short"))
	}
	page, err := ParsePage(r)
	if err != nil {
		return err
	}
	byClicks := false
	switch q.Get("order") {
	case "", "date":
	case "click", "clicks":
		byClicks = true
	default:
		return BadRequest("order", "must be date or click")
	}
	withUniques, err := parseListWith(q["with"])
	if err != nil {
		return err
	}
	// ClickHouse holds the counts and PostgreSQL the links. While ClickHouse
	// is down the list still answers, newest first, with null counts.
	statsUp := true
	var rank *pgstore.ClickRanking
	if byClicks {
		if rank, statsUp, err = s.LinkRanking(r.Context(), u.ID, page.Offset()+page.Limit+1); err != nil {
			return err
		}
	}
	links, total, err := s.store.ListLinks(r.Context(), u.ID, rank, page.Limit, page.Offset())
	if err != nil {
		return err
	}
	var totals map[int64]stats.Totals
	if statsUp {
		if totals, statsUp, err = s.LinkTotals(r.Context(), links, withUniques); err != nil {
			return err
		}
	}
	rows := make([]map[string]any, 0, len(links))
	for i := range links {
		l := &links[i]
		t := totals[l.ID]
		row := map[string]any{
			"id":          l.ID,
			"alias":       l.Alias,
			"shorturl":    l.ShortURL(s.cfg.BaseURL),
			"longurl":     l.LongURL,
			"clicks":      count(statsUp, t.Clicks),
			"title":       l.MetaTitle,
			"description": l.Description,
			"date":        link.FormatTime(l.CreatedAt),
			// extension
			"campaign": idOrZero(l.CampaignID),
		}
		if withUniques {
			row["uniqueClicks"] = count(statsUp, t.UniqueClicks)
		}
		rows = append(rows, row)
	}
	return ListExtra(w, page, total, "urls", rows, map[string]any{"statsAvailable": statsUp})
}

// parseListWith reads the list's with= parameters (repeated or comma
// separated): the extra columns to compute. uniqueClicks is the only one;
// any other value is a 400, never silently ignored.
func parseListWith(values []string) (uniques bool, err error) {
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			switch {
			case item == "":
			case strings.EqualFold(item, "uniqueClicks"):
				uniques = true
			default:
				return false, BadRequest("with", fmt.Sprintf("unknown value %q; the only value is uniqueClicks", clip(item)))
			}
		}
	}
	return uniques, nil
}

// searchLink answers ?short=: a full short URL finds the alias on that
// host; a bare alias finds it on any of the caller's hosts, the default
// domain first.
func (s *Server) searchLink(w http.ResponseWriter, r *http.Request, u *link.User, short string) error {
	host, alias, anyHost, ok := s.parseShort(short)
	if !ok {
		return NotFound("link")
	}
	l, err := s.store.FindLink(r.Context(), u.ID, host, alias, anyHost)
	if err != nil {
		if errors.Is(err, link.ErrNotFound) {
			return NotFound("link")
		}
		return err
	}
	return s.writeLink(r.Context(), w, l)
}

// parseShort splits a short URL ("https://sho.rt/abc", also without a
// scheme) or a bare alias into the stored host ("" = default domain) and
// alias. ok is false when it cannot name any link.
func (s *Server) parseShort(raw string) (host, alias string, anyHost, ok bool) {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "/") {
		return "", raw, true, link.IsAliasSyntax(raw)
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	v, err := link.ValidURL(raw)
	if err != nil {
		return "", "", false, false
	}
	pu, err := url.Parse(v)
	if err != nil {
		return "", "", false, false
	}
	alias = strings.TrimSuffix(strings.TrimPrefix(pu.Path, "/"), "/")
	if !link.IsAliasSyntax(alias) {
		return "", "", false, false
	}
	// Stored hosts are keys as ParseDomain writes them (lower-case ASCII,
	// no default port); a browser's other spellings name the same host.
	if s.isDefaultHost(v) {
		return "", alias, false, true
	}
	return hostname.Key(link.HostOf(v)), alias, false, true
}

// writeLink writes the single-link response of spec 2.9. After the spec's
// keys, details carries the link's other settings (documented extension)
// so a client can read back everything it wrote.
func (s *Server) writeLink(ctx context.Context, w http.ResponseWriter, l *link.Link) error {
	data, err := s.linkStatsData(ctx, l.ID)
	if err != nil {
		return err
	}
	location := make(map[string]string, len(l.GeoTargets))
	for _, g := range l.GeoTargets {
		name := target.CountryName(g.Location)
		if name == "" { // a code retired after it was stored: still show it
			name = strings.ToLower(g.Location)
		}
		location[name] = g.Link
	}
	device := make(map[string]string, len(l.DeviceTargets))
	for _, d := range l.DeviceTargets {
		device[d.Device] = d.Link
	}
	var expiry any
	if l.ExpiresAt != nil {
		expiry = link.FormatTime(*l.ExpiresAt)
	}
	details := map[string]any{
		"id":          l.ID,
		"shorturl":    l.ShortURL(s.cfg.BaseURL),
		"longurl":     l.LongURL,
		"title":       l.MetaTitle,
		"description": l.Description,
		"location":    location,
		"device":      device,
		"expiry":      expiry,
		"date":        link.FormatTime(l.CreatedAt),
		// extensions
		"alias":           l.Alias,
		"domain":          l.Domain,
		"type":            l.TypeString(),
		"status":          l.Status,
		"channel":         idOrZero(l.ChannelID),
		"campaign":        idOrZero(l.CampaignID),
		"pixels":          l.PixelIDs,
		"languagetarget":  l.LangTargets,
		"deeplink":        map[string]string{"ios_store": l.DeeplinkIOS, "android_store": l.DeeplinkAndroid},
		"parameters":      l.Parameters,
		"metatitle":       l.MetaTitle,
		"metadescription": l.MetaDescription,
		"metaimage":       l.MetaImage,
		"password":        l.PasswordHash != "",
	}
	return OK(w, map[string]any{"id": l.ID, "details": details, "data": data})
}

func idOrZero(id *int64) int64 {
	if id == nil {
		return 0
	}
	return *id
}

// linkPatch validates the fields present in in and turns them into a
// patch. adding selects the add semantics ("" means "none" rather than
// "remove"). Add and update accept the same fields (dedupe aside).
func (s *Server) linkPatch(ctx context.Context, userID int64, in *linkInput, adding bool) (*link.LinkPatch, error) {
	p, err := s.checkLink(ctx, userID, in, adding)
	if err != nil {
		return nil, err
	}
	if err := s.patchPassword(ctx, p, in, adding); err != nil {
		return nil, err
	}
	return p, nil
}

// checkLink is linkPatch without the password's hash: every check, no
// expensive work (LinkErrors runs it once per field).
func (s *Server) checkLink(ctx context.Context, userID int64, in *linkInput, adding bool) (*link.LinkPatch, error) {
	p := &link.LinkPatch{}
	var urls []urlField // every URL a visitor may be sent to, for the loop check
	if in.URL != nil {
		v, err := link.ValidURL(*in.URL)
		if err != nil {
			return nil, BadRequest("url", err.Error())
		}
		p.LongURL = &v
		urls = append(urls, urlField{"url", v})
	}
	if in.Custom != nil && *in.Custom != "" {
		if err := link.ValidCustomAlias(*in.Custom); err != nil {
			return nil, BadRequest("custom", err.Error())
		}
		p.Alias = in.Custom
	}
	if err := s.patchTypeAndAccess(p, in, adding); err != nil {
		return nil, err
	}
	if err := s.patchTexts(p, in); err != nil {
		return nil, err
	}
	targetURLs, err := patchTargets(p, in)
	if err != nil {
		return nil, err
	}
	urls = append(urls, targetURLs...)
	if in.Pixels != nil {
		if len(*in.Pixels) > MaxLinkPixels {
			return nil, BadRequest("pixels", fmt.Sprintf("at most %d pixels", MaxLinkPixels))
		}
		for _, id := range *in.Pixels {
			if id <= 0 {
				return nil, Errorf(http.StatusBadRequest, "pixels: %d is not one of your pixels", id)
			}
		}
		p.PixelIDs = (*[]int64)(in.Pixels)
	}
	if in.Channel != nil {
		if *in.Channel < 0 {
			return nil, BadRequest("channel", "must be a channel id, or 0 for none")
		}
		p.ChannelID = in.Channel
	}
	if in.Campaign != nil {
		if *in.Campaign < 0 {
			return nil, BadRequest("campaign", "must be a campaign id, or 0 for none")
		}
		p.CampaignID = in.Campaign
	}
	if in.Parameters != nil {
		if err := validParams(*in.Parameters); err != nil {
			return nil, err
		}
		p.Parameters = (*[]link.Param)(in.Parameters)
	}
	if err := s.refuseLoops(ctx, userID, urls); err != nil {
		return nil, err
	}
	return p, nil
}

// patchPassword hashes a sent link password ("" removes it on update).
// It runs after every other check: argon2id is the expensive part, and a
// request refused anyway should not pay for it.
func (s *Server) patchPassword(ctx context.Context, p *link.LinkPatch, in *linkInput, adding bool) error {
	if in.Password == nil {
		return nil
	}
	hash := ""
	if *in.Password != "" {
		var err error
		if hash, err = s.HashPassword(ctx, *in.Password); err != nil {
			return fmt.Errorf("hash link password: %w", err)
		}
	}
	if hash != "" || !adding {
		p.PasswordHash = &hash
	}
	return nil
}

// patchTypeAndAccess handles type, domain and expiry, and checks the
// password's length (patchPassword hashes it, last).
func (s *Server) patchTypeAndAccess(p *link.LinkPatch, in *linkInput, adding bool) error {
	if in.Type != nil {
		typ, pageID, err := link.ParseType(*in.Type)
		if err != nil {
			return BadRequest("type", err.Error())
		}
		p.Type = &typ
		if pageID != 0 && typ == link.TypeSplash {
			p.SplashID = &pageID
		} else if pageID != 0 {
			p.OverlayID = &pageID
		}
	}
	if in.Password != nil && len(*in.Password) > link.MaxLinkPassword {
		return BadRequest("password", "must be at most 1024 bytes")
	}
	if in.Domain != nil {
		host, err := s.linkHost(*in.Domain)
		if err != nil {
			return err
		}
		p.Host = &host
	}
	if in.Expiry != nil {
		if *in.Expiry == "" {
			p.ClearExpiry = !adding
			return nil
		}
		t, err := link.ParseTime(*in.Expiry)
		if err != nil {
			return BadRequest("expiry", "must be a UTC time as YYYY-MM-DD HH:MM:SS, or a date YYYY-MM-DD (the end of that day)")
		}
		if !t.After(s.now()) {
			return BadRequest("expiry", "must be in the future")
		}
		p.ExpiresAt = &t
	}
	return nil
}

// linkHost turns the domain field into the stored host: "" (or the
// default short domain itself) is the default domain; anything else must
// be one of the caller's branded domains, which the store checks.
func (s *Server) linkHost(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", nil
	}
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	_, host, err := link.ParseDomain(raw)
	if err != nil {
		return "", BadRequest("domain", "must be one of your domains such as https://go.example.com, or empty for the default domain")
	}
	if hostname.Key(host) == hostname.Key(s.cfg.BaseHost) {
		return "", nil
	}
	return host, nil
}

// patchTexts handles metatitle, metadescription, metaimage, description
// and status.
func (s *Server) patchTexts(p *link.LinkPatch, in *linkInput) error {
	if in.Description != nil {
		if err := link.ValidText(*in.Description, link.MaxDescription, true); err != nil {
			return BadRequest("description", err.Error())
		}
		p.Description = in.Description
	}
	if in.Status != nil {
		if err := link.ValidStatus(*in.Status); err != nil {
			return BadRequest("status", err.Error())
		}
		p.Status = in.Status
	}
	if in.MetaTitle != nil {
		if err := link.ValidText(*in.MetaTitle, link.MaxMetaTitle, false); err != nil {
			return BadRequest("metatitle", err.Error())
		}
		p.MetaTitle = in.MetaTitle
	}
	if in.MetaDescription != nil {
		if err := link.ValidText(*in.MetaDescription, link.MaxMetaDescription, true); err != nil {
			return BadRequest("metadescription", err.Error())
		}
		p.MetaDescription = in.MetaDescription
	}
	if in.MetaImage != nil {
		img := ""
		if *in.MetaImage != "" {
			var err error
			if img, err = link.ValidMetaImage(*in.MetaImage); err != nil {
				return BadRequest("metaimage", link.ErrMetaImage.Error())
			}
		}
		p.MetaImage = &img
	}
	return nil
}

// urlField is a URL from the payload (or a stored link) with the field it
// came from.
type urlField struct{ field, url string }

// targetField names a targeting rule's URL, as errors and framing
// warnings show it: "geotarget[0].link".
func targetField(list string, i int) string { return fmt.Sprintf("%s[%d].link", list, i) }

// patchTargets validates and normalises the targeting lists and deep
// links; it returns their URLs for the loop check.
func patchTargets(p *link.LinkPatch, in *linkInput) ([]urlField, error) {
	var spec target.Spec
	if in.GeoTarget != nil {
		for _, g := range *in.GeoTarget {
			spec.Geo = append(spec.Geo, target.Rule{Key: g.Location, URL: g.Link})
		}
	}
	if in.DeviceTarget != nil {
		for _, d := range *in.DeviceTarget {
			spec.Device = append(spec.Device, target.Rule{Key: d.Device, URL: d.Link})
		}
	}
	if in.LanguageTarget != nil {
		for _, l := range *in.LanguageTarget {
			spec.Lang = append(spec.Lang, target.Rule{Key: l.Language, URL: l.Link})
		}
	}
	norm, err := target.Normalize(spec)
	if err != nil {
		var re *target.RuleError
		if errors.As(err, &re) {
			return nil, BadRequest(re.Path(), re.Err.Error())
		}
		return nil, err
	}
	var urls []urlField
	rules := func(list string, rs []target.Rule) ([]target.Rule, error) {
		for i := range rs {
			field := targetField(list, i)
			v, err := link.ValidURL(rs[i].URL)
			if err != nil {
				return nil, BadRequest(field, err.Error())
			}
			rs[i].URL = v
			urls = append(urls, urlField{field, v})
		}
		return rs, nil
	}
	if in.GeoTarget != nil {
		rs, err := rules("geotarget", norm.Geo)
		if err != nil {
			return nil, err
		}
		geo := make([]link.GeoTarget, 0, len(rs))
		for _, r := range rs {
			geo = append(geo, link.GeoTarget{Location: r.Key, Link: r.URL})
		}
		p.GeoTargets = &geo
	}
	if in.DeviceTarget != nil {
		rs, err := rules("devicetarget", norm.Device)
		if err != nil {
			return nil, err
		}
		dev := make([]link.DeviceTarget, 0, len(rs))
		for _, r := range rs {
			dev = append(dev, link.DeviceTarget{Device: r.Key, Link: r.URL})
		}
		p.DeviceTargets = &dev
	}
	if in.LanguageTarget != nil {
		rs, err := rules("languagetarget", norm.Lang)
		if err != nil {
			return nil, err
		}
		lang := make([]link.LangTarget, 0, len(rs))
		for _, r := range rs {
			lang = append(lang, link.LangTarget{Language: r.Key, Link: r.URL})
		}
		p.LangTargets = &lang
	}
	if in.Deeplink != nil {
		store := func(field string, raw *string, dst **string) error {
			if raw == nil {
				return nil
			}
			v := ""
			if *raw != "" {
				var err error
				if v, err = link.ValidHTTPSURL(*raw); err != nil {
					return BadRequest(field, err.Error())
				}
				urls = append(urls, urlField{field, v})
			}
			*dst = &v
			return nil
		}
		if err := store("deeplink.ios_store", in.Deeplink.IOSStore, &p.DeeplinkIOS); err != nil {
			return nil, err
		}
		if err := store("deeplink.android_store", in.Deeplink.AndroidStore, &p.DeeplinkAndroid); err != nil {
			return nil, err
		}
	}
	return urls, nil
}

func validParams(ps []link.Param) error {
	if len(ps) > link.MaxParams {
		return BadRequest("parameters", fmt.Sprintf("at most %d parameters", link.MaxParams))
	}
	for i, p := range ps {
		if field, err := link.ValidParam(p); err != nil {
			return BadRequest(fmt.Sprintf("parameters[%d].%s", i, field), err.Error())
		}
	}
	return nil
}

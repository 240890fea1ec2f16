package link

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Redirect types stored in links.type. Splash and overlay may name the
// user's own page by id (Link.SplashID / Link.OverlayID).
const (
	TypeDirect  = "direct"
	TypeFrame   = "frame"
	TypeSplash  = "splash"
	TypeOverlay = "overlay"
)

// Link statuses: public links appear on public campaign list pages; the
// status never changes redirects.
const (
	StatusPublic  = "public"
	StatusPrivate = "private"
)

// Field limits of a link (the spec leaves them open).
const (
	MaxMetaTitle       = 200
	MaxMetaDescription = 500
	MaxDescription     = 500
	MaxParams          = 20
	MaxParamName       = 100
	MaxParamValue      = 500
	MaxLinkPassword    = 1024
)

// GeoTarget sends visitors from a country elsewhere. Location is an upper
// case ISO 3166-1 alpha-2 code once stored.
type GeoTarget struct {
	Location string `json:"location"`
	Link     string `json:"link"`
}

// DeviceTarget sends visitors on a device elsewhere; Device is canonical.
type DeviceTarget struct {
	Device string `json:"device"`
	Link   string `json:"link"`
}

// LangTarget sends visitors preferring a language elsewhere; Language is a
// canonical BCP 47 tag.
type LangTarget struct {
	Language string `json:"language"`
	Link     string `json:"link"`
}

// Param is a query parameter appended to the long URL on redirect.
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Link is a short link with all its settings. The JSON tags of the target
// and parameter types are the stored JSONB form.
type Link struct {
	ID     int64
	UserID int64
	// Host is "" for the default short domain, else the branded domain's
	// host; DomainID and Domain (scheme://host) describe that domain.
	Host     string
	DomainID *int64
	Domain   string
	Alias    string
	Custom   bool
	LongURL  string
	Type     string
	// SplashID / OverlayID pick the user's own page for TypeSplash /
	// TypeOverlay; nil means the service's default page.
	SplashID        *int64
	OverlayID       *int64
	PasswordHash    string
	ExpiresAt       *time.Time
	MetaTitle       string
	MetaDescription string
	MetaImage       string
	Description     string
	Status          string
	ChannelID       *int64
	CampaignID      *int64
	DeeplinkIOS     string
	DeeplinkAndroid string
	GeoTargets      []GeoTarget
	DeviceTargets   []DeviceTarget
	LangTargets     []LangTarget
	Parameters      []Param
	PixelIDs        []int64 // sorted ascending
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// ShortURL is the public short URL: the branded domain's URL, else base
// (KURZ_BASE_URL), then "/" and the alias.
func (l *Link) ShortURL(base string) string {
	if l.Domain != "" {
		return l.Domain + "/" + l.Alias
	}
	return base + "/" + l.Alias
}

// TypeString renders Type with the chosen page: "splash-3", "overlay-7",
// or the bare type. It is the form the API accepts on write.
func (l *Link) TypeString() string {
	switch {
	case l.Type == TypeSplash && l.SplashID != nil:
		return fmt.Sprintf("splash-%d", *l.SplashID)
	case l.Type == TypeOverlay && l.OverlayID != nil:
		return fmt.Sprintf("overlay-%d", *l.OverlayID)
	}
	return l.Type
}

// Errors of ParseType.
var ErrLinkType = errors.New("must be direct, frame, splash, overlay, splash-<id> or overlay-<id>")

// ParseType splits a written type into the stored type and the page id of
// "splash-<id>" / "overlay-<id>" (0 when none).
func ParseType(s string) (typ string, pageID int64, err error) {
	switch s {
	case TypeDirect, TypeFrame, TypeSplash, TypeOverlay:
		return s, 0, nil
	}
	kind, num, ok := strings.Cut(s, "-")
	if !ok || (kind != TypeSplash && kind != TypeOverlay) {
		return "", 0, ErrLinkType
	}
	id, ok := ParseID(num)
	if !ok {
		return "", 0, ErrLinkType
	}
	return kind, id, nil
}

// ParseID parses a positive decimal record id strictly: digits only, no
// sign, no spaces, within int64.
func ParseID(s string) (int64, bool) {
	if s == "" || len(s) > 19 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n > (1<<63-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, n > 0
}

// ErrMetaImage: metaimage is not a jpg/png URL.
var ErrMetaImage = errors.New("must be an http or https URL of a .jpg, .jpeg or .png image")

// ValidMetaImage checks a preview image URL: http(s) and a path ending in
// .jpg, .jpeg or .png. Nothing is fetched.
func ValidMetaImage(raw string) (string, error) {
	s, err := ValidURL(raw)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", ErrMetaImage
	}
	p := strings.ToLower(u.Path)
	if !strings.HasSuffix(p, ".jpg") && !strings.HasSuffix(p, ".jpeg") && !strings.HasSuffix(p, ".png") {
		return "", ErrMetaImage
	}
	return s, nil
}

// ErrHTTPSOnly: a store link must use https.
var ErrHTTPSOnly = errors.New("must be an https URL")

// ValidHTTPSURL is ValidURL restricted to https (app-store deep links).
func ValidHTTPSURL(raw string) (string, error) {
	s, err := ValidURL(raw)
	if err != nil {
		return "", err
	}
	if !strings.EqualFold(s[:len("https:")], "https:") {
		return "", ErrHTTPSOnly
	}
	return s, nil
}

// Parameter errors.
var (
	ErrParamName  = errors.New("must be 1 to 100 characters of letters, digits, '-', '.', '_' and '~'")
	ErrParamValue = errors.New("must be at most 500 characters without control characters")
)

// ValidParam checks a redirect query parameter. Names are URL-unreserved
// characters so they need no escaping; values are escaped on redirect.
func ValidParam(p Param) (field string, err error) {
	if len(p.Name) < 1 || len(p.Name) > MaxParamName {
		return "name", ErrParamName
	}
	for i := 0; i < len(p.Name); i++ {
		c := p.Name[i]
		if !(isAliasChar(c) || c == '.' || c == '~') {
			return "name", ErrParamName
		}
	}
	if ValidText(p.Value, MaxParamValue, false) != nil {
		return "value", ErrParamValue
	}
	return "", nil
}

// RefError reports a referenced record (pixel, channel, campaign, splash
// page, overlay, domain) that does not exist or is not the caller's. Field
// is the API field; ID or Value names the reference.
type RefError struct {
	Field string
	ID    int64
	Value string
}

func (e *RefError) Error() string {
	if e.Value != "" {
		return fmt.Sprintf("%s: %q is not one of your %s", e.Field, e.Value, refNoun(e.Field))
	}
	return fmt.Sprintf("%s: %d is not one of your %s", e.Field, e.ID, refNoun(e.Field))
}

func refNoun(field string) string {
	switch field {
	case "pixels":
		return "pixels"
	case "channel":
		return "channels"
	case "campaign":
		return "campaigns"
	case "domain":
		return "domains"
	case "type":
		return "splash pages or overlays"
	}
	return "records"
}

// ErrAliasTaken is ErrConflict for a (host, alias) pair already in use.
var ErrAliasTaken = fmt.Errorf("%w: alias already taken", ErrConflict)

// LinkPatch is a partial update: nil fields stay as they are. Clear* flags
// remove optional values (expiry, password).
type LinkPatch struct {
	LongURL         *string
	Alias           *string // a new custom alias
	Type            *string
	SplashID        *int64
	OverlayID       *int64
	PasswordHash    *string // "" removes the password
	Host            *string // "" = default short domain
	ExpiresAt       *time.Time
	ClearExpiry     bool
	GeoTargets      *[]GeoTarget
	DeviceTargets   *[]DeviceTarget
	LangTargets     *[]LangTarget
	MetaTitle       *string
	MetaDescription *string
	MetaImage       *string
	PixelIDs        *[]int64
	ChannelID       *int64 // 0 removes the channel
	CampaignID      *int64 // 0 removes the campaign
	DeeplinkIOS     *string
	DeeplinkAndroid *string
	Parameters      *[]Param
	Description     *string
	Status          *string // StatusPublic or StatusPrivate
}

// Apply changes l by p. Type, SplashID and OverlayID change together when
// Type is set.
func (p *LinkPatch) Apply(l *Link) {
	patchField(&l.LongURL, p.LongURL)
	if p.Alias != nil {
		l.Alias, l.Custom = *p.Alias, true
	}
	if p.Type != nil {
		l.Type, l.SplashID, l.OverlayID = *p.Type, p.SplashID, p.OverlayID
	}
	patchField(&l.PasswordHash, p.PasswordHash)
	if p.Host != nil && *p.Host != l.Host {
		l.Host, l.DomainID, l.Domain = *p.Host, nil, ""
	}
	if p.ClearExpiry {
		l.ExpiresAt = nil
	} else if p.ExpiresAt != nil {
		t := *p.ExpiresAt
		l.ExpiresAt = &t
	}
	patchField(&l.GeoTargets, p.GeoTargets)
	patchField(&l.DeviceTargets, p.DeviceTargets)
	patchField(&l.LangTargets, p.LangTargets)
	patchField(&l.MetaTitle, p.MetaTitle)
	patchField(&l.MetaDescription, p.MetaDescription)
	patchField(&l.MetaImage, p.MetaImage)
	if p.PixelIDs != nil {
		l.PixelIDs = SortedIDs(*p.PixelIDs)
	}
	patchRef(&l.ChannelID, p.ChannelID)
	patchRef(&l.CampaignID, p.CampaignID)
	patchField(&l.DeeplinkIOS, p.DeeplinkIOS)
	patchField(&l.DeeplinkAndroid, p.DeeplinkAndroid)
	patchField(&l.Parameters, p.Parameters)
	patchField(&l.Description, p.Description)
	patchField(&l.Status, p.Status)
}

// patchRef sets an optional reference: nil keeps it, 0 removes it.
func patchRef(dst **int64, v *int64) {
	if v == nil {
		return
	}
	*dst = nil
	if *v != 0 {
		id := *v
		*dst = &id
	}
}

// Plain reports whether l has nothing but its long URL and short domain:
// a random alias, type direct, private, and no password, expiry, meta
// data, description, targeting, deep links, parameters, pixels, channel or
// campaign. Shortening a URL again without options returns the user's
// existing plain link for it (pgstore.CreateLinkOrReuse, whose SQL
// mirrors this predicate).
func (l *Link) Plain() bool {
	return !l.Custom && l.Type == TypeDirect && l.SplashID == nil && l.OverlayID == nil &&
		l.PasswordHash == "" && l.ExpiresAt == nil && l.MetaTitle == "" && l.MetaDescription == "" &&
		l.MetaImage == "" && l.Description == "" && l.Status == StatusPrivate &&
		l.ChannelID == nil && l.CampaignID == nil && l.DeeplinkIOS == "" && l.DeeplinkAndroid == "" &&
		len(l.GeoTargets) == 0 && len(l.DeviceTargets) == 0 && len(l.LangTargets) == 0 &&
		len(l.Parameters) == 0 && len(l.PixelIDs) == 0
}

// ValidStatus checks a link status.
func ValidStatus(s string) error {
	if s != StatusPublic && s != StatusPrivate {
		return ErrStatus
	}
	return nil
}

// ErrStatus is the rule a link status breaks.
var ErrStatus = errors.New("must be public or private")

func patchField[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// SortedIDs returns ids sorted ascending without duplicates, never nil.
func SortedIDs(ids []int64) []int64 {
	out := slices.Clone(ids)
	if out == nil {
		out = []int64{}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

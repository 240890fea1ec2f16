package visitorpage

import (
	"html/template"
	"net/http"
	"strconv"
)

// Data is the data of one page. Each page has its own struct; pass a
// non-nil pointer to it (*NotFoundPage, *FramePage, ...).
type Data interface {
	// Status is the HTTP status code to send with the page.
	Status() int
	kind() kind
}

// kind names a page and its template set.
type kind uint8

const (
	kindMessage kind = iota // NotFound, Gone, Unavailable, StatsUnavailable
	kindLanding
	kindPassword
	kindPreview
	kindFrame
	kindOverlay
	kindSplash
	kindPixel
	kindCampaign
	kindStats
	numKinds
)

// templateFiles maps each kind to its page template, parsed with layout.html.
var templateFiles = [numKinds]string{
	kindMessage:  "message.html",
	kindLanding:  "landing.html",
	kindPassword: "password.html",
	kindPreview:  "preview.html",
	kindFrame:    "frame.html",
	kindOverlay:  "overlay.html",
	kindSplash:   "splash.html",
	kindPixel:    "pixel.html",
	kindCampaign: "campaign.html",
	kindStats:    "stats.html",
}

// NotFoundPage is the 404 page for an unknown alias. HomeURL, when a valid
// http(s) URL, adds a link to it.
type NotFoundPage struct{ HomeURL string }

// GonePage is the 410 page for an expired link.
type GonePage struct{ HomeURL string }

// UnavailablePage is the 503 page served when a link cannot be loaded (the
// database is unreachable and the link is not cached). RetryAfter > 0 adds a
// Retry-After header (seconds).
type UnavailablePage struct{ RetryAfter int }

// LandingPage is the neutral page for the bare root of a domain without a
// redirectroot. Host is shown as the heading when set.
type LandingPage struct{ Host string }

// PasswordPage is the form of a password-protected link. The form posts the
// field "password" back to the same URL. Title (else Alias) names the link.
// Wrong reports a failed attempt (status 403); RetryAfter > 0 reports the
// attempt throttle (status 429, Retry-After header) and wins over Wrong.
// Busy with RetryAfter reports that the edge cannot check passwords right
// now (status 503: its argon2 budget is spent, not the visitor's).
type PasswordPage struct {
	Title      string
	Alias      string
	Wrong      bool
	Busy       bool
	RetryAfter int
}

// PreviewPage is the Open Graph / Twitter card page for social crawlers.
// Destination (required) is shown as a plain link, never redirected to.
// URL is the short URL (og:url); Image is used only when it is http(s).
// An empty Title falls back to the destination's host.
type PreviewPage struct {
	Title       string
	Description string
	Image       string
	URL         string
	Destination string
}

// FramePage frames Destination (required) in a full-viewport iframe under a
// bar linking to it directly. An empty Title falls back to the host.
type FramePage struct {
	Title       string
	Destination string
}

// OverlayPage frames Destination like FramePage and puts a call-to-action
// box over it. Background and Color must be #RRGGBB (anything else falls
// back to the default colours); Position is one of bottom-left,
// bottom-right, top-left, top-right, bottom, top (else bottom-left). The
// button shows only when ButtonURL is http(s).
type OverlayPage struct {
	Title       string
	Destination string
	Message     string
	ButtonText  string
	ButtonURL   string
	Background  string
	Color       string
	Position    string
}

// SplashPage shows a message for Counter seconds (clamped to 0..60), then
// redirects to Destination (required) by meta refresh and script. Title,
// Message, Image and Link come from the user's splash page; empty Title or
// Message get neutral defaults, so a zero SplashPage with a Destination and
// Counter is the default splash. Image and Link are used only when http(s).
type SplashPage struct {
	Destination string
	Counter     int
	Title       string
	Message     string
	Image       string
	Link        string
}

// PixelPage fires the link's tracking pixels and redirects to Destination
// (required) after at most ~1 s. Pixels of unknown types or with empty tags
// are skipped; duplicates fire once.
type PixelPage struct {
	Destination string
	Pixels      []Pixel
}

// Pixel is one tracking pixel: Type is a spec 2.10 type
// ("tagmanagerpixel", ...), Tag the vendor's id for it.
type Pixel struct {
	Type string
	Tag  string
}

// CampaignPage is the public list of a campaign's links. Links whose
// ShortURL is not http(s) are left out. More: the campaign has older
// links than those listed (the page says it shows the newest).
type CampaignPage struct {
	Name  string
	Owner string
	Links []CampaignLink
	More  bool
}

// CampaignLink is one row of a CampaignPage, labelled by Title, else Alias.
type CampaignLink struct {
	Title       string
	Alias       string
	ShortURL    string
	Description string
}

// StatsPage is the public statistics page of a link ({shorturl}+): its
// human clicks, unique visitors and top-N lists. Title (else the alias)
// names the link; ShortURL and Destination are shown only when http(s),
// so leave Destination empty to hide it (password-protected links).
// Countries are lower-case English names (shown capitalised).
type StatsPage struct {
	Title        string
	Alias        string
	ShortURL     string
	Destination  string
	Clicks       uint64
	UniqueClicks uint64
	Countries    []StatsCount
	Referrers    []StatsCount
	Browsers     []StatsCount
	OS           []StatsCount
	// CacheSeconds says how old the numbers may be, for the footnote.
	CacheSeconds int
}

// StatsCount is one row of a top-N list.
type StatsCount struct {
	Name string
	N    uint64
}

// StatsUnavailablePage is the 503 page of a stats page whose numbers cannot
// be read right now. RetryAfter > 0 adds a Retry-After header (seconds).
type StatsUnavailablePage struct{ RetryAfter int }

// Status implementations: the default status of each page.

func (*NotFoundPage) Status() int    { return http.StatusNotFound }
func (*GonePage) Status() int        { return http.StatusGone }
func (*UnavailablePage) Status() int { return http.StatusServiceUnavailable }
func (*LandingPage) Status() int     { return http.StatusOK }
func (d *PasswordPage) Status() int {
	switch {
	case d.Busy && d.RetryAfter > 0:
		return http.StatusServiceUnavailable
	case d.RetryAfter > 0:
		return http.StatusTooManyRequests
	case d.Wrong:
		return http.StatusForbidden
	}
	return http.StatusOK
}
func (*PreviewPage) Status() int  { return http.StatusOK }
func (*FramePage) Status() int    { return http.StatusOK }
func (*OverlayPage) Status() int  { return http.StatusOK }
func (*SplashPage) Status() int   { return http.StatusOK }
func (*PixelPage) Status() int    { return http.StatusOK }
func (*CampaignPage) Status() int { return http.StatusOK }
func (*StatsPage) Status() int    { return http.StatusOK }
func (*StatsUnavailablePage) Status() int {
	return http.StatusServiceUnavailable
}

func (*NotFoundPage) kind() kind    { return kindMessage }
func (*GonePage) kind() kind        { return kindMessage }
func (*UnavailablePage) kind() kind { return kindMessage }
func (*LandingPage) kind() kind     { return kindLanding }
func (*PasswordPage) kind() kind    { return kindPassword }
func (*PreviewPage) kind() kind     { return kindPreview }
func (*FramePage) kind() kind       { return kindFrame }
func (*OverlayPage) kind() kind     { return kindOverlay }
func (*SplashPage) kind() kind      { return kindSplash }
func (*PixelPage) kind() kind       { return kindPixel }
func (*CampaignPage) kind() kind    { return kindCampaign }
func (*StatsPage) kind() kind       { return kindStats }
func (*StatsUnavailablePage) kind() kind {
	return kindMessage
}

// Default overlay colours, used when a stored colour is not #RRGGBB (the
// dashboard's overlay form starts from them).
const (
	DefaultOverlayBackground = "#1F2328"
	DefaultOverlayColor      = "#FFFFFF"
)

// overlayCSS is the only dynamic style text: built from validated hex
// colours alone, and hashed into the page's CSP.
func overlayCSS(d *OverlayPage) string {
	bg := hexColor(d.Background, DefaultOverlayBackground)
	fg := hexColor(d.Color, DefaultOverlayColor)
	return ".ov{background:" + bg + ";color:" + fg + "}.ov-btn{background:" + fg + ";color:" + bg + "}"
}

// pixelMask is the set of vendors present in d (bit i = vendors[i]).
func pixelMask(d *PixelPage) uint16 {
	var m uint16
	for _, px := range d.Pixels {
		if i := vendorIndex(px.Type); i >= 0 && px.Tag != "" {
			m |= 1 << i
		}
	}
	return m
}

// clampCounter keeps the splash delay within the stored bounds.
func clampCounter(n int) int {
	return min(max(n, 0), 60)
}

func itoa(n int) string { return strconv.Itoa(n) }

// cssText marks style text as safe for a <style> element; callers pass
// only text built from validated hex colours (overlayCSS).
func cssText(s string) template.CSS { return template.CSS(s) }

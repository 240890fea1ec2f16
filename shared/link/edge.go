package link

import (
	"math"
	"slices"
	"strings"
	"time"
)

// The edge's read models: what the redirect server needs of a link, a
// branded domain, a campaign and a QR code, each read in one round trip
// (shared/pgstore, edge.go) and cached by the edge (edge/internal/catalog).
// Content joined from another table (splash page, overlay, pixels) belongs
// to the link's owner.

// EdgeTarget is one targeting rule: Key is the country code, device name
// or language tag, URL the destination.
type EdgeTarget struct {
	Key string
	URL string
}

// GeoRules, DeviceRules and LangRules turn the stored targeting lists
// (GeoTarget, DeviceTarget, LangTarget: their JSON tags are the stored
// keys) into rules; nil for an empty list.
func GeoRules(in []GeoTarget) []EdgeTarget {
	return rules(in, func(t GeoTarget) EdgeTarget { return EdgeTarget{Key: t.Location, URL: t.Link} })
}

// DeviceRules: see GeoRules.
func DeviceRules(in []DeviceTarget) []EdgeTarget {
	return rules(in, func(t DeviceTarget) EdgeTarget { return EdgeTarget{Key: t.Device, URL: t.Link} })
}

// LangRules: see GeoRules.
func LangRules(in []LangTarget) []EdgeTarget {
	return rules(in, func(t LangTarget) EdgeTarget { return EdgeTarget{Key: t.Language, URL: t.Link} })
}

func rules[T any](in []T, conv func(T) EdgeTarget) []EdgeTarget {
	if len(in) == 0 {
		return nil
	}
	out := make([]EdgeTarget, len(in))
	for i, t := range in {
		out[i] = conv(t)
	}
	return out
}

// EdgePixel is one tracking pixel of a link; the JSON tags are the keys
// of the list the edge's queries aggregate.
type EdgePixel struct {
	Type string `json:"type"`
	Tag  string `json:"tag"`
}

// EdgeSplash is a custom splash page's content.
type EdgeSplash struct {
	ID      int64
	Title   string
	Message string
	Image   string
	Link    string
	Counter int
}

// EdgeOverlay is a call-to-action overlay's content.
type EdgeOverlay struct {
	ID         int64
	Type       string
	Message    string
	ButtonText string
	ButtonURL  string
	Background string
	Color      string
	Position   string
}

// EdgeLink is a link with everything the edge's rules need.
type EdgeLink struct {
	ID              int64
	UserID          int64
	Host            string // '' = default domain
	Alias           string
	LongURL         string
	Type            string // TypeDirect, TypeFrame, TypeSplash or TypeOverlay
	PasswordHash    string
	ExpiresAt       *time.Time
	MetaTitle       string
	MetaDescription string
	MetaImage       string
	DeeplinkIOS     string
	DeeplinkAndroid string
	Geo             []EdgeTarget
	Device          []EdgeTarget
	Language        []EdgeTarget
	Parameters      []Param
	Pixels          []EdgePixel
	Splash          *EdgeSplash  // nil: none chosen (type splash uses the default page)
	Overlay         *EdgeOverlay // nil: none chosen
	Redirect404     string       // the link's branded domain's redirect404, '' when none
	// Public: status is public, so the link's stats page ({shorturl}+) is
	// served. Status never changes how the link redirects.
	Public bool
	// FrameRefused: a destination of this frame or overlay link refuses to
	// be framed (checked by the admin on write): serve it as a redirect.
	FrameRefused bool
}

// EdgeDomain is what the edge needs of a branded domain.
type EdgeDomain struct {
	ID           int64
	Host         string
	RedirectRoot string
	Redirect404  string
}

// EdgeCampaignLink is one public link of a campaign as its list page shows
// it.
type EdgeCampaignLink struct {
	ID          int64
	Host        string // '' = default domain
	Domain      string // the branded domain's scheme://host; '' = default domain
	Alias       string
	Title       string // meta title, else ''
	Description string
}

// Bounds of what the edge holds of one campaign, so that a campaign of any
// size costs a bounded entry of the edge's campaign cache (which must never
// refuse an entry, or it would be loaded again on every request).
const (
	// MaxCampaignListLinks is the most links a campaign's list page shows:
	// the newest public ones.
	MaxCampaignListLinks = 1000
	// MaxCampaignListBytes bounds the text (titles, descriptions, aliases,
	// domains) of the links a list page holds; past it the page shows fewer
	// links (still the newest). A title is at most 200 and a description
	// 500 characters, so this binds only with long texts on most links.
	MaxCampaignListBytes = 512 << 10
	// MaxRotatorLinks is the most links a rotator turns over: the
	// campaign's oldest, in link-id order.
	MaxRotatorLinks = 10000
	// maxRotatorAliasBytes bounds a rotator's aliases: MaxRotatorLinks
	// aliases of the longest custom length.
	maxRotatorAliasBytes = MaxRotatorLinks * MaxCustomAliasLen
)

// EdgeCampaign is a campaign's list page: the campaign and its newest
// public links (at most MaxCampaignListLinks and MaxCampaignListBytes),
// shown oldest first.
type EdgeCampaign struct {
	ID       int64
	UserID   int64
	Name     string
	Slug     string
	Username string
	Public   bool
	Links    []EdgeCampaignLink
	// More: the campaign has public links older than those in Links.
	More bool
}

// Cost is the bytes l holds on a list page: its text plus a fixed
// overhead.
func (l *EdgeCampaignLink) Cost() int64 {
	return int64(96 + len(l.Host) + len(l.Domain) + len(l.Alias) + len(l.Title) + len(l.Description))
}

// EdgeRotator is what a campaign's rotator needs: the keys (host, alias) of
// the links it turns over, in link-id order, packed: a link costs its
// alias plus 6 bytes, so a rotator of MaxRotatorLinks links holds at most
// ~700 KB (~120 KB with typical aliases). The chosen link itself is
// resolved by its key like any visit, so its rules apply.
type EdgeRotator struct {
	ID      int64
	hosts   []string // distinct hosts of the links; '' = default domain
	hostOf  []uint16 // hostOf[i] indexes hosts
	ends    []uint32 // ends[i] is the end of link i's alias in aliases
	aliases string
	buf     strings.Builder
}

// Add appends a link's key; it reports false, adding nothing, once the
// rotator holds MaxRotatorLinks links or its bounds on aliases or hosts
// are reached. Call Seal when done.
func (r *EdgeRotator) Add(host, alias string) bool {
	if len(r.ends) >= MaxRotatorLinks || r.buf.Len()+len(alias) > maxRotatorAliasBytes {
		return false
	}
	h := slices.Index(r.hosts, host)
	if h < 0 {
		if len(r.hosts) > math.MaxUint16 {
			return false
		}
		h = len(r.hosts)
		r.hosts = append(r.hosts, host)
	}
	r.buf.WriteString(alias)
	r.hostOf = append(r.hostOf, uint16(h))
	r.ends = append(r.ends, uint32(r.buf.Len()))
	return true
}

// Seal ends the building: the rotator is read-only from then on, and safe
// to share.
func (r *EdgeRotator) Seal() {
	// Exact-size copies: appending left up to twice the room needed.
	r.aliases = strings.Clone(r.buf.String())
	r.buf = strings.Builder{}
	r.hostOf, r.ends = slices.Clone(r.hostOf), slices.Clone(r.ends)
}

// Len is the number of links the rotator turns over.
func (r *EdgeRotator) Len() int { return len(r.ends) }

// Key returns link i's host and alias (0 <= i < Len). It does not
// allocate.
func (r *EdgeRotator) Key(i int) (host, alias string) {
	start := uint32(0)
	if i > 0 {
		start = r.ends[i-1]
	}
	return r.hosts[r.hostOf[i]], r.aliases[start:r.ends[i]]
}

// Cost is the bytes the rotator holds.
func (r *EdgeRotator) Cost() int64 {
	n := int64(64 + len(r.aliases) + 2*cap(r.hostOf) + 4*cap(r.ends))
	for _, h := range r.hosts {
		n += int64(16 + len(h))
	}
	return n
}

// EdgeQRTarget is what a scan of a QR code (/q/{code}) needs: whom to
// count it for and where to send the scanner. It holds no logo, colours or
// content, so scans cost little memory however large the code's logo.
type EdgeQRTarget struct {
	ID        int64
	UserID    int64
	TargetURL string // '' for codes that are not links
}

// EdgeQR is what the edge needs to render a QR code.
type EdgeQR struct {
	ID         int64
	UserID     int64
	Code       string
	Type       string
	Content    string
	TargetURL  string
	Background string
	Foreground string
	Logo       []byte
	UpdatedAt  time.Time
}

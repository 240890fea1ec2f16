package link

import "time"

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

// EdgeCampaignLink is one link of a campaign as the rotator and the list
// page see it.
type EdgeCampaignLink struct {
	ID          int64
	Host        string // '' = default domain
	Domain      string // the branded domain's scheme://host; '' = default domain
	Alias       string
	Title       string // meta title, else ''
	Description string
	// Public links appear on the campaign's list page; private ones are
	// still rotated (status controls listing, never redirects).
	Public bool
}

// EdgeCampaign is a campaign with its links, oldest first.
type EdgeCampaign struct {
	ID       int64
	UserID   int64
	Name     string
	Slug     string
	Username string
	Public   bool
	Links    []EdgeCampaignLink
}

// EdgeQR is what the edge needs of a QR code.
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

package link

import (
	"errors"
	"slices"
	"strings"
	"time"
)

// Pixel is a user's tracking pixel; links list the pixels the edge fires.
type Pixel struct {
	ID        int64
	UserID    int64
	Type      string // one of PixelTypes
	Name      string
	Tag       string // vendor identifier, see ValidPixelTag
	CreatedAt time.Time
}

// PixelTypes are the 13 pixel kinds of spec 2.10.
var PixelTypes = []string{
	"tagmanagerpixel", "analyticspixel", "socialnetworkpixel", "searchadspixel",
	"professionalnetworkpixel", "microblogpixel", "retargetingpixel", "questionsitepixel",
	"imageboard", "searchengine", "messagingapp", "forumsite", "shortvideo",
}

// MaxPixelTag and MaxPixelName bound a pixel's fields.
const (
	MaxPixelTag  = 128
	MaxPixelName = 100
)

// PixelTypeAliases maps the pixel identifiers of the service this API
// was modelled on, which existing clients send, to the spec's neutral
// names. It is the only place that knows them; the stored and returned type
// is always the neutral name.
var PixelTypeAliases = map[string]string{
	"gtmpixel":      "tagmanagerpixel",
	"gapixel":       "analyticspixel",
	"fbpixel":       "socialnetworkpixel",
	"adwordspixel":  "searchadspixel",
	"linkedinpixel": "professionalnetworkpixel",
	"twitterpixel":  "microblogpixel",
	"adrollpixel":   "retargetingpixel",
	"quorapixel":    "questionsitepixel",
	"pinterest":     "imageboard",
	"bing":          "searchengine",
	"snapchat":      "messagingapp",
	"reddit":        "forumsite",
	"tiktok":        "shortvideo",
}

// PixelType resolves a written pixel type: one of PixelTypes or an alias
// of PixelTypeAliases, in any ASCII case. It returns the neutral name.
func PixelType(s string) (string, bool) {
	t := strings.ToLower(s)
	if slices.Contains(PixelTypes, t) {
		return t, true
	}
	canon, ok := PixelTypeAliases[t]
	return canon, ok
}

// ErrPixelTag is the rule a pixel tag breaks.
var ErrPixelTag = errors.New("must be 1 to 128 characters of letters, digits and '-', '_', '.', ':', '/'")

// ValidPixelTag checks a pixel tag: an identifier such as "GTM-ABC123" or
// "AW-1/xyz", never markup, so the edge can put it into a page safely.
func ValidPixelTag(s string) error {
	if len(s) < 1 || len(s) > MaxPixelTag {
		return ErrPixelTag
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isAliasChar(c) || c == '.' || c == ':' || c == '/') {
			return ErrPixelTag
		}
	}
	return nil
}

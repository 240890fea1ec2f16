package link

import (
	"errors"
	"slices"
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

// ValidPixelType reports whether t is one of PixelTypes.
func ValidPixelType(t string) bool { return slices.Contains(PixelTypes, t) }

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

package link

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Overlay is a call-to-action overlay the edge shows over a framed page.
type Overlay struct {
	ID         int64
	UserID     int64
	Name       string
	Type       string // OverlayTypes
	Message    string
	ButtonText string
	ButtonURL  string // "" = no button link
	Background string // #rrggbb or "" = the edge's default
	Color      string // #rrggbb or "" = the edge's default
	Position   string // OverlayPositions
	CreatedAt  time.Time
}

// OverlayTypes are the overlay kinds the edge can render.
var OverlayTypes = []string{"message"}

// OverlayPositions are where an overlay may sit on the page.
var OverlayPositions = []string{"bottom-left", "bottom-right", "top-left", "top-right", "bottom", "top"}

// DefaultOverlayPosition is used when none is given.
const DefaultOverlayPosition = "bottom-left"

// SplashPage is an interstitial page shown for Counter seconds before the
// redirect.
type SplashPage struct {
	ID        int64
	UserID    int64
	Name      string
	Title     string
	Message   string
	Image     string // http(s) URL or ""
	Link      string // http(s) URL or ""
	Counter   int    // seconds, MinSplashCounter..MaxSplashCounter
	CreatedAt time.Time
}

// Splash counter bounds and default, in seconds.
const (
	MinSplashCounter     = 0
	MaxSplashCounter     = 60
	DefaultSplashCounter = 5
)

// BioPage is a minimal link-in-bio page record: enough for channel items of
// type bio. Aliases are unique per user, case-insensitively.
type BioPage struct {
	ID        int64
	UserID    int64
	Title     string
	Alias     string
	ChannelID *int64
	CreatedAt time.Time
}

// BioURL is the public address of a bio page.
func BioURL(baseURL, username, alias string) string {
	return baseURL + "/u/" + pathEscape(username) + "/bio/" + alias
}

// Text length caps (in characters) shared by the page records.
const (
	MaxNameLen        = 100
	MaxTitleLen       = 200
	MaxMessageLen     = 1000
	MaxButtonTextLen  = 100
	MaxDescriptionLen = 500
)

// ErrTextControl rejects control characters in user text the edge renders.
var ErrTextControl = errors.New("must not contain control characters")

// ValidText checks user-supplied text: valid UTF-8, at most max characters,
// no control characters (newlines and tabs allowed when multiline).
func ValidText(s string, max int, multiline bool) error {
	if !utf8.ValidString(s) {
		return errors.New("must be valid UTF-8")
	}
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Errorf("must be at most %d characters, got %d", max, n)
	}
	for _, r := range s {
		if r == '\n' || r == '\t' || r == '\r' {
			if multiline {
				continue
			}
			return ErrTextControl
		}
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u2028' || r == '\u2029' {
			return ErrTextControl
		}
	}
	return nil
}

// ErrAlias is the rule slugs and page aliases follow.
var ErrAlias = errors.New("must be 3 to 64 letters, digits, '-' or '_', and not only digits")

// ValidAlias checks a slug or page alias: [A-Za-z0-9_-]{3,64} with at least
// one non-digit, so an all-digit path segment always means a record id.
func ValidAlias(s string) error {
	if len(s) < 3 || len(s) > 64 {
		return ErrAlias
	}
	digits := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_':
			digits = false
		default:
			return ErrAlias
		}
	}
	if digits {
		return ErrAlias
	}
	return nil
}

// pathEscape escapes a path segment without importing net/url here.
func pathEscape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

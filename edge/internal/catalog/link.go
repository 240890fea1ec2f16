package catalog

import (
	"fmt"
	"math"
	"time"

	"kurz/shared/link"
	"kurz/shared/target"
)

// Type is a link's redirect type.
type Type uint8

// Redirect types, as stored in links.type.
const (
	TypeDirect Type = iota
	TypeFrame
	TypeSplash
	TypeOverlay
)

// Link is a compiled link. It is immutable once built and shared by all
// requests; never modify one taken from the cache.
//
// Memory layout (a 1M-link cache must fit in a few hundred MB): 64 bytes.
// Host, Alias and Dest are views of one string (two lengths instead of
// two more string headers); the fields few links use (password, meta
// tags, pixels, splash, overlay, redirect404) live in Extra, which points
// to one shared empty value for the common link, so reading
// l.PasswordHash etc. never needs a nil check.
type Link struct {
	ID      int64
	OwnerID int64
	strs    string // host + alias + dest
	// ExpiresAt is in unix nanoseconds; 0 = never.
	ExpiresAt int64
	// Targets picks another destination per visitor; nil when the link has
	// no rules. Its URLs already carry the parameters.
	Targets *target.Set

	*Extra // never nil

	hostLen, aliasLen uint16
	Type              Type
	Uses              target.Uses
	flags             flags
	// Plain: direct, no password, expiry, targeting or pixels — the path
	// that only needs a Location header.
	Plain bool
}

// Host is the link's branded domain host; "" = default domain.
func (l *Link) Host() string { return l.strs[:l.hostLen] }

// Alias is the link's alias.
func (l *Link) Alias() string { return l.strs[l.hostLen : l.hostLen+l.aliasLen] }

// Dest is the long URL with the link's parameters applied; Location-safe.
func (l *Link) Dest() string { return l.strs[l.hostLen+l.aliasLen:] }

func (l *Link) setStrings(host, alias, all string) {
	l.strs, l.hostLen, l.aliasLen = all, uint16(len(host)), uint16(len(alias))
}

// Extra holds what only some links carry.
type Extra struct {
	PasswordHash string // argon2id; '' = no password

	MetaTitle       string
	MetaDescription string
	MetaImage       string

	Pixels      []link.EdgePixel
	Splash      *link.EdgeSplash
	Overlay     *link.EdgeOverlay
	Redirect404 string // the branded domain's not-found redirect; '' when none
}

// noExtra is the Extra of every link without any of its fields. Shared;
// never modified.
var noExtra = &Extra{}

// flags are the link's yes/no facts, packed into one byte so that Link
// stays 64 bytes (warm_test checks the size).
type flags uint8

const (
	flagMissing      flags = 1 << iota // negative cache entry: no such link
	flagPublic                         // status public: the stats page is served
	flagFrameRefused                   // a destination refuses frames: serve frame/overlay as a redirect
)

// Missing reports whether l is a negative cache entry (no such link).
func (l *Link) Missing() bool { return l.flags&flagMissing != 0 }

// Public reports whether the link's status is public: its stats page
// ({shorturl}+) is served. Status never changes how the link redirects.
func (l *Link) Public() bool { return l.flags&flagPublic != 0 }

// FrameRefused reports whether a destination of this frame or overlay
// link refuses to be framed (X-Frame-Options, CSP frame-ancestors; the
// admin checks on write). Browsers give the frame page no way to notice,
// so the visitor would see the browser's error page in the frame.
func (l *Link) FrameRefused() bool { return l.flags&flagFrameRefused != 0 }

// ExpiredAt reports whether the link has expired at unixNano.
func (l *Link) ExpiredAt(unixNano int64) bool { return l.ExpiresAt != 0 && unixNano >= l.ExpiresAt }

// Bounds of time.Time.UnixNano: outside them it overflows.
var (
	maxNanoTime = time.Unix(0, math.MaxInt64)
	minNanoTime = time.Unix(0, math.MinInt64)
)

// expiryNanos is an expiry in unix nanoseconds (ExpiresAt). Dates after
// 2262-04-11 overflow UnixNano, and "never" dates such as 9999-12-31 are
// common: they become the largest instant, which no request reaches.
// Dates before 1678 become the smallest; 0 (the epoch) would read as
// "never", so it moves one nanosecond earlier.
func expiryNanos(t time.Time) int64 {
	switch {
	case t.After(maxNanoTime):
		return math.MaxInt64
	case t.Before(minNanoTime):
		return math.MinInt64
	}
	if n := t.UnixNano(); n != 0 {
		return n
	}
	return -1
}

func missing(host, alias string) (*Link, int64) {
	l := &Link{Extra: noExtra, flags: flagMissing}
	l.setStrings(host, alias, host+alias)
	return l, int64(64 + len(host) + len(alias))
}

// packStrings returns host + alias + dest in one new string.
func packStrings(host, alias, dest string) string { return host + alias + dest }

// Compile prepares a loaded link for the hot path. A long URL that is not
// a safe absolute http(s) URL is an error (the admin validates on write;
// this guards the Location header against rows written some other way).
// Invalid targeting rules are dropped rather than failing the link.
// cost is the entry's estimated size for ristretto's byte budget.
func Compile(in *link.EdgeLink) (l *Link, cost int64, err error) {
	l = new(Link)
	if cost, err = compileInto(l, in, nil); err != nil {
		return nil, 0, err
	}
	return l, cost, nil
}

// compileInto is Compile into l; the strings l keeps go into sl (a warm-up
// batch's slab), or onto the heap when sl is nil.
func compileInto(l *Link, in *link.EdgeLink, sl *slab) (int64, error) {
	dest, err := link.WithParams(in.LongURL, in.Parameters)
	if err != nil {
		return 0, fmt.Errorf("compile link %d: long url: %w", in.ID, err)
	}
	if len(in.Host) > 0xffff || len(in.Alias) > 0xffff {
		return 0, fmt.Errorf("compile link %d: host or alias too long", in.ID)
	}
	*l = Link{ID: in.ID, OwnerID: in.UserID, Extra: noExtra}
	if in.Public {
		l.flags |= flagPublic
	}
	if in.FrameRefused {
		l.flags |= flagFrameRefused
	}
	l.setStrings(in.Host, in.Alias, sl.pack(in.Host, in.Alias, dest))
	x := Extra{
		PasswordHash:    sl.str(in.PasswordHash),
		MetaTitle:       sl.str(in.MetaTitle),
		MetaDescription: sl.str(in.MetaDescription),
		MetaImage:       sl.str(safeURL(in.MetaImage)),
		Pixels:          in.Pixels,
		Splash:          in.Splash,
		Overlay:         in.Overlay,
		Redirect404:     sl.str(safeURL(in.Redirect404)),
	}
	if len(x.Pixels) == 0 {
		x.Pixels = nil
	}
	if x.PasswordHash != "" || x.MetaTitle != "" || x.MetaDescription != "" || x.MetaImage != "" ||
		x.Pixels != nil || x.Splash != nil || x.Overlay != nil || x.Redirect404 != "" {
		l.Extra = &x
	}
	switch in.Type {
	case "frame":
		l.Type = TypeFrame
	case "splash":
		l.Type = TypeSplash
	case "overlay":
		l.Type = TypeOverlay
	}
	if in.ExpiresAt != nil {
		l.ExpiresAt = expiryNanos(*in.ExpiresAt)
	}
	spec := target.Spec{
		Geo:          rules(in.Geo, in.Parameters, sl),
		Device:       rules(in.Device, in.Parameters, sl),
		Lang:         rules(in.Language, in.Parameters, sl),
		IOSStore:     sl.str(link.ParamURL(in.DeeplinkIOS, in.Parameters)),
		AndroidStore: sl.str(link.ParamURL(in.DeeplinkAndroid, in.Parameters)),
	}
	if len(spec.Geo)+len(spec.Device)+len(spec.Lang) > 0 || spec.IOSStore != "" || spec.AndroidStore != "" {
		if set, err := target.Compile(spec); err == nil {
			l.Targets, l.Uses = set, set.Uses()
		}
	}
	l.Plain = l.Type == TypeDirect && l.PasswordHash == "" && l.ExpiresAt == 0 && l.Targets == nil && len(l.Pixels) == 0
	return l.estimateCost(in), nil
}

// linkOverhead is what a cached plain link costs beyond its strings,
// measured with heap profiles of 100k and 1M warmed links: the 64-byte
// Link, the string's size-class rounding, and ristretto's store and policy
// entries (~120 and ~35 bytes at 1M).
const linkOverhead = 256

// estimateCost approximates the bytes the entry keeps alive; ristretto's
// MaxCost is a byte budget.
func (l *Link) estimateCost(in *link.EdgeLink) int64 {
	n := linkOverhead + len(l.strs)
	if l.Extra != noExtra {
		n += 128 + len(l.PasswordHash) + len(l.MetaTitle) + len(l.MetaDescription) + len(l.MetaImage) + len(l.Redirect404)
	}
	for _, t := range [][]link.EdgeTarget{in.Geo, in.Device, in.Language} {
		for _, r := range t {
			n += 48 + 2*len(r.URL) + len(r.Key)
		}
	}
	n += 2 * (len(in.DeeplinkIOS) + len(in.DeeplinkAndroid))
	for _, p := range l.Pixels {
		n += 32 + len(p.Type) + len(p.Tag)
	}
	if l.Splash != nil {
		n += 96 + len(l.Splash.Title) + len(l.Splash.Message) + len(l.Splash.Image) + len(l.Splash.Link)
	}
	if l.Overlay != nil {
		n += 128 + len(l.Overlay.Message) + len(l.Overlay.ButtonText) + len(l.Overlay.ButtonURL)
	}
	return int64(n)
}

func rules(in []link.EdgeTarget, params []link.Param, sl *slab) []target.Rule {
	var out []target.Rule
	for _, r := range in {
		if u := link.ParamURL(r.URL, params); u != "" {
			out = append(out, target.Rule{Key: r.Key, URL: sl.str(u)})
		}
	}
	return out
}

// safeURL returns raw when it is a valid http(s) URL, else ”.
func safeURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := link.ValidURL(raw)
	if err != nil {
		return ""
	}
	return u
}

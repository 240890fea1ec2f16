package visitorpage

import (
	"errors"
	"fmt"
	"html/template"
	"strconv"
	"strings"
)

// ErrUnsafeURL is returned by Render when a page's required destination is
// not an absolute http(s) URL. Nothing is written in that case.
var ErrUnsafeURL = errors.New("destination is not an absolute http(s) URL")

// The view types are what the templates see: every URL already validated,
// every fallback applied, so the templates hold no logic beyond if/range.

type messageView struct{ Heading, Text, HomeURL string }

type landingView struct{ Host string }

type passwordView struct{ Label, Error string }

type previewView struct{ Title, Description, Image, URL, Destination string }

type frameView struct{ Title, Destination string }

type overlayView struct {
	Title, Destination             string
	ColorCSS                       template.CSS
	Position                       string
	Message, ButtonText, ButtonURL string
}

type splashView struct {
	Title, Message, Image, Link, Destination string
	Counter                                  int
}

type pixelItem struct{ Vendor, Tag, NoScriptImg, NoScriptFrame string }

type pixelView struct {
	Destination string
	Pixels      []pixelItem
}

type campaignLinkView struct{ Label, ShortURL, Description string }

type campaignView struct {
	Name, Owner string
	Links       []campaignLinkView
	More        bool
}

type statsRow struct{ Name, N, Percent string }

type statsList struct {
	Heading string
	Class   string // "cc" capitalises country names
	Rows    []statsRow
}

type statsView struct {
	Title, ShortURL, Destination string
	Clicks, UniqueClicks         string
	Lists                        []statsList
	CacheSeconds                 int
}

// view validates d and builds its template data.
func view(d Data) (any, error) {
	switch d := d.(type) {
	case *NotFoundPage:
		return messageView{"Link not found", "The short link you followed does not exist or was removed.", safeURL(d.HomeURL)}, nil
	case *GonePage:
		return messageView{"This link has expired", "The short link you followed is no longer active.", safeURL(d.HomeURL)}, nil
	case *UnavailablePage:
		return messageView{"Temporarily unavailable", "This link cannot be opened right now. Please retry in a moment.", ""}, nil
	case *LandingPage:
		return landingView{d.Host}, nil
	case *PasswordPage:
		return passwordView{firstNonEmpty(d.Title, d.Alias), passwordError(d)}, nil
	case *PreviewPage:
		return previewPage(d)
	case *FramePage:
		dest := safeURL(d.Destination)
		if dest == "" {
			return nil, ErrUnsafeURL
		}
		return frameView{firstNonEmpty(d.Title, urlHost(dest)), dest}, nil
	case *OverlayPage:
		return overlayPage(d)
	case *SplashPage:
		return splashPage(d)
	case *PixelPage:
		return pixelPage(d)
	case *CampaignPage:
		return campaignPage(d), nil
	case *StatsPage:
		return statsPage(d), nil
	case *StatsUnavailablePage:
		return messageView{"Statistics temporarily unavailable", "The statistics of this link cannot be read right now. Please retry in a moment.", ""}, nil
	}
	return nil, fmt.Errorf("unknown page data %T", d)
}

func passwordError(d *PasswordPage) string {
	switch {
	case d.Busy && d.RetryAfter > 0:
		return "Too many password checks right now. Please wait " + itoa(d.RetryAfter) + " seconds and try again."
	case d.RetryAfter > 0:
		return "Too many attempts. Please wait " + itoa(d.RetryAfter) + " seconds and try again."
	case d.Wrong:
		return "Wrong password. Please try again."
	}
	return ""
}

func previewPage(d *PreviewPage) (previewView, error) {
	dest := safeURL(d.Destination)
	if dest == "" {
		return previewView{}, ErrUnsafeURL
	}
	return previewView{
		Title:       firstNonEmpty(d.Title, urlHost(dest)),
		Description: d.Description,
		Image:       safeURL(d.Image),
		URL:         safeURL(d.URL),
		Destination: dest,
	}, nil
}

func overlayPage(d *OverlayPage) (overlayView, error) {
	dest := safeURL(d.Destination)
	if dest == "" {
		return overlayView{}, ErrUnsafeURL
	}
	v := overlayView{
		Title:       firstNonEmpty(d.Title, urlHost(dest)),
		Destination: dest,
		ColorCSS:    cssText(overlayCSS(d)),
		Position:    positionClass(d.Position),
		Message:     d.Message,
		ButtonURL:   safeURL(d.ButtonURL),
	}
	if v.ButtonURL != "" {
		v.ButtonText = firstNonEmpty(d.ButtonText, "Learn more")
	}
	return v, nil
}

func splashPage(d *SplashPage) (splashView, error) {
	dest := safeURL(d.Destination)
	if dest == "" {
		return splashView{}, ErrUnsafeURL
	}
	return splashView{
		Title:       firstNonEmpty(d.Title, "Redirecting"),
		Message:     firstNonEmpty(d.Message, "You are being taken to "+urlHost(dest)+"."),
		Image:       safeURL(d.Image),
		Link:        safeURL(d.Link),
		Destination: dest,
		Counter:     clampCounter(d.Counter),
	}, nil
}

func pixelPage(d *PixelPage) (pixelView, error) {
	dest := safeURL(d.Destination)
	if dest == "" {
		return pixelView{}, ErrUnsafeURL
	}
	v := pixelView{Destination: dest, Pixels: make([]pixelItem, 0, len(d.Pixels))}
	for _, px := range d.Pixels {
		i := vendorIndex(px.Type)
		if i < 0 || px.Tag == "" || hasPixel(v.Pixels, vendors[i].key, px.Tag) {
			continue
		}
		it := pixelItem{Vendor: vendors[i].key, Tag: px.Tag}
		if f := vendors[i].noscriptImg; f != nil {
			it.NoScriptImg = f(px.Tag)
		}
		if f := vendors[i].noscriptFrame; f != nil {
			it.NoScriptFrame = f(px.Tag)
		}
		v.Pixels = append(v.Pixels, it)
	}
	return v, nil
}

func hasPixel(items []pixelItem, vendor, tag string) bool {
	for _, it := range items {
		if it.Vendor == vendor && it.Tag == tag {
			return true
		}
	}
	return false
}

func campaignPage(d *CampaignPage) campaignView {
	v := campaignView{Name: firstNonEmpty(d.Name, "Campaign"), Owner: d.Owner, Links: make([]campaignLinkView, 0, len(d.Links)), More: d.More}
	for _, l := range d.Links {
		u := safeURL(l.ShortURL)
		if u == "" {
			continue
		}
		v.Links = append(v.Links, campaignLinkView{firstNonEmpty(l.Title, l.Alias, u), u, l.Description})
	}
	return v
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func statsPage(d *StatsPage) statsView {
	list := func(heading, class string, cs []StatsCount) statsList {
		l := statsList{Heading: heading, Class: class, Rows: make([]statsRow, 0, len(cs))}
		for _, c := range cs {
			l.Rows = append(l.Rows, statsRow{Name: c.Name, N: formatCount(c.N), Percent: percent(c.N, d.Clicks)})
		}
		return l
	}
	return statsView{
		Title:        firstNonEmpty(d.Title, d.Alias, "Link statistics"),
		ShortURL:     safeURL(d.ShortURL),
		Destination:  safeURL(d.Destination),
		Clicks:       formatCount(d.Clicks),
		UniqueClicks: formatCount(d.UniqueClicks),
		Lists: []statsList{
			list("Top countries", "cc", d.Countries),
			list("Top referrers", "", d.Referrers),
			list("Top browsers", "", d.Browsers),
			list("Top operating systems", "", d.OS),
		},
		CacheSeconds: max(d.CacheSeconds, 0),
	}
}

// formatCount writes n with thin-space thousands separators (1 234 567),
// readable in every locale.
func formatCount(n uint64) string {
	s := strconv.FormatUint(n, 10)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString("\u202f")
		}
		b.WriteRune(c)
	}
	return b.String()
}

// percent is n as a share of total, to one decimal ("12.5%"); "" when
// total is 0.
func percent(n, total uint64) string {
	if total == 0 {
		return ""
	}
	return strconv.FormatFloat(float64(n)*100/float64(total), 'f', 1, 64) + "%"
}

package visitorpage

import (
	"net/url"
	"strings"
)

// maxURLLen bounds the URLs a page embeds; longer ones are refused rather
// than truncated.
const maxURLLen = 8192

// safeURL returns raw when it is an absolute http or https URL with a host
// and without whitespace or control characters, else "". Only URLs that pass
// are placed in href, src, meta refresh, og:* or data-url attributes, so a
// javascript:, data: or scheme-relative URL can never reach a page.
func safeURL(raw string) string {
	if raw == "" || len(raw) > maxURLLen {
		return ""
	}
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c <= ' ' || c == 0x7f {
			return ""
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return ""
	}
	if !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") {
		return ""
	}
	return raw
}

// urlHost is the host of an already validated URL, for neutral texts.
func urlHost(valid string) string {
	u, err := url.Parse(valid)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// hexColor returns c when it is exactly #RRGGBB (either case), else def.
// Nothing else ever reaches CSS, so a value like "red;background:url(x)"
// cannot inject rules.
func hexColor(c, def string) string {
	if len(c) != 7 || c[0] != '#' {
		return def
	}
	for i := 1; i < 7; i++ {
		b := c[i]
		if !(b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F') {
			return def
		}
	}
	return c
}

// positionClass maps an overlay position to its fixed CSS class; unknown
// values fall back to bottom-left, the stored default.
func positionClass(p string) string {
	switch p {
	case "bottom-right":
		return "p-br"
	case "top-left":
		return "p-tl"
	case "top-right":
		return "p-tr"
	case "bottom":
		return "p-b"
	case "top":
		return "p-t"
	default:
		return "p-bl"
	}
}

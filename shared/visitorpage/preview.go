package visitorpage

import (
	"fmt"
	"strings"
)

// Link-preview fetchers (Slackbot, facebookexternalhit, ...) get a page on
// every visit, and they unfurl many different links, so the edge's cache of
// rendered previews misses often. Executing templates/preview.html took
// ~13 µs per page (reflection and contextual escaping at run time); this
// writer produces the same bytes in about a tenth of that. The template
// stays the definition of the page: TestPreviewMatchesTemplate compares the
// two byte for byte for hostile and random inputs in every branch, so an
// edit to one without the other fails the tests.

// AppendPreview validates d like Render and appends its page to dst.
func (p *Pages) AppendPreview(dst []byte, d *PreviewPage) ([]byte, error) {
	v, err := previewPage(d)
	if err != nil {
		return dst, fmt.Errorf("render %s: %w", templateFiles[kindPreview], err)
	}
	return p.appendPreview(dst, &v), nil
}

// appendPreview writes templates/preview.html for v. Every value goes
// through the escaper html/template picks for its context: text, <title>
// and quoted attributes get htmlEscape; the href gets URL normalisation
// first (its scheme was checked by previewPage).
func (p *Pages) appendPreview(b []byte, v *previewView) []byte {
	b = append(b, p.start...)
	b = append(b, "<title>"...)
	b = htmlEscape(b, v.Title)
	b = append(b, "</title>\n"...)
	b = optionalMeta(b, `<meta name="description" content="`, v.Description)
	b = append(b, "<meta property=\"og:type\" content=\"website\">\n"...)
	b = metaTag(b, `<meta property="og:title" content="`, v.Title)
	b = optionalMeta(b, `<meta property="og:description" content="`, v.Description)
	b = optionalMeta(b, `<meta property="og:image" content="`, v.Image)
	b = optionalMeta(b, `<meta property="og:url" content="`, v.URL)
	if v.Image != "" {
		b = append(b, "<meta name=\"twitter:card\" content=\"summary_large_image\">\n"...)
	} else {
		b = append(b, "<meta name=\"twitter:card\" content=\"summary\">\n"...)
	}
	b = metaTag(b, `<meta name="twitter:title" content="`, v.Title)
	b = optionalMeta(b, `<meta name="twitter:description" content="`, v.Description)
	b = optionalMeta(b, `<meta name="twitter:image" content="`, v.Image)
	b = append(b, "</head>\n<body>\n<main>\n<h1>"...)
	b = htmlEscape(b, v.Title)
	b = append(b, "</h1>\n"...)
	if v.Description != "" {
		b = append(b, "<p>"...)
		b = htmlEscape(b, v.Description)
		b = append(b, "</p>\n"...)
	}
	b = append(b, "<p><a href=\""...)
	b = urlAttrEscape(b, v.Destination)
	b = append(b, "\" rel=\"noopener\">"...)
	b = htmlEscape(b, v.Destination)
	return append(b, "</a></p>\n</main>\n</body>\n</html>\n"...)
}

// optionalMeta is metaTag for a value the page leaves out when empty.
func optionalMeta(b []byte, open, value string) []byte {
	if value == "" {
		return b
	}
	return metaTag(b, open, value)
}

func metaTag(b []byte, open, value string) []byte {
	b = append(b, open...)
	b = htmlEscape(b, value)
	return append(b, "\">\n"...)
}

// htmlEscape appends s escaped as html/template does in text, RCDATA and
// quoted attribute values (its htmlReplacementTable): every byte it
// replaces is ASCII, and UTF-8 continuation bytes never are, so a byte loop
// handles multi-byte and invalid sequences the same way.
func htmlEscape(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); i++ {
		var r string
		switch s[i] {
		case 0:
			r = "\uFFFD"
		case '"':
			r = "&#34;"
		case '&':
			r = "&amp;"
		case '\'':
			r = "&#39;"
		case '+':
			r = "&#43;"
		case '<':
			r = "&lt;"
		case '>':
			r = "&gt;"
		default:
			continue
		}
		b = append(b, s[last:i]...)
		b = append(b, r...)
		last = i + 1
	}
	return append(b, s[last:]...)
}

// urlAttrEscape appends s as html/template writes a URL into a quoted
// attribute: normalised (bytes outside RFC 3986's unreserved and reserved
// sets percent-encoded, valid %XX escapes kept), then '&' and '+' escaped
// for HTML; the other HTML specials cannot survive the normalisation.
func urlAttrEscape(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '&':
			b = append(b, "&amp;"...)
		case c == '+':
			b = append(b, "&#43;"...)
		case urlKeep(c):
			b = append(b, c)
		case c == '%' && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]):
			b = append(b, c)
		default:
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return b
}

// urlKeep reports the bytes html/template's URL normaliser leaves as they
// are ('%' is decided by the caller).
func urlKeep(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!#$*,/:;=?@[]", c) >= 0
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

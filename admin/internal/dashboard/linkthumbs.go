package dashboard

import (
	"net/url"
	"slices"
	"strings"
)

// QR thumbnails of the link table. Each row's image is the link's own QR
// code as the edge serves it ({short URL}/qr/{size}.svg): the edge renders
// and caches it, the browser loads it lazily, so a page of 25 rows costs
// the admin no render at all. The page's CSP allows images from the
// origins of its rows' short links (the default short domain and the
// user's branded domains on the page).

// qrThumbSize is the size asked of the edge (its smallest); the SVG is
// drawn at the table's size whatever it is.
const qrThumbSize = 100

// qrOrigins are the distinct origins of the rows' QR images, for the CSP.
// An origin that is not plainly scheme://host[:port] is left out (its
// image is then blocked, never the policy bent).
func qrOrigins(rows []linkRow) []string {
	var out []string
	for _, r := range rows {
		if r.QR == "" {
			continue
		}
		u, err := url.Parse(r.QR)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !plainHost(u.Host) {
			continue
		}
		o := u.Scheme + "://" + u.Host
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// plainHost says whether h has only the characters of an ASCII host name,
// IP literal and port: nothing that could end or extend a CSP source.
func plainHost(h string) bool {
	return h != "" && !strings.ContainsFunc(h, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(".-:[]", r))
	})
}

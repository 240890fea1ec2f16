package dashboard

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
)

// setPageHeaders sets the headers of every page. The CSP allows scripts
// only with this response's nonce (the one <script> of the layout carries
// it), styles and images only from the dashboard itself, forms only to
// it, and no framing at all. Pages are personal: never cached. No page
// sends a Referer (the reset page's URL holds a token).
func setPageHeaders(h http.Header, nonce string) {
	h.Set("Content-Security-Policy", pageCSP(nonce, nil, ""))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// pageCSP is the pages' policy; imgOrigins are more origins images may
// come from (scheme://host[:port], checked by the caller) and extra more
// directives (allowPreviewFrame).
func pageCSP(nonce string, imgOrigins []string, extra string) string {
	img := "'self' data:"
	for _, o := range imgOrigins {
		img += " " + o
	}
	return "default-src 'none'; script-src 'nonce-" + nonce + "'; style-src 'self'; " +
		"img-src " + img + "; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'" + extra
}

// allowImages widens this response's policy to images from origins (the
// link table's QR thumbnails, served by the edge).
func allowImages(h http.Header, nonce string, origins []string) {
	if len(origins) > 0 {
		h.Set("Content-Security-Policy", pageCSP(nonce, origins, ""))
	}
}

// newNonce is a fresh 128-bit CSP nonce.
func newNonce() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

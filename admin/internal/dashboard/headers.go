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
	h.Set("Content-Security-Policy", pageCSP(nonce, ""))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// pageCSP is the pages' policy with extra directives (allowPreviewFrame).
func pageCSP(nonce, extra string) string {
	return "default-src 'none'; script-src 'nonce-" + nonce + "'; style-src 'self'; " +
		"img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'" + extra
}

// newNonce is a fresh 128-bit CSP nonce.
func newNonce() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// Package visitorpage renders every HTML page a visitor of a short link
// sees: the error and landing pages, the password form, the social
// preview for crawlers, the frame, splash, overlay and pixel
// interstitials, the public campaign list and a public link's stats page.
// The edge serves them; the admin's dashboard renders the splash and
// overlay pages too, as live previews of its forms (EmbedHeaders), so a
// preview is the edge's own page, not a copy of it.
//
// Templates (templates/*.html) and the inline CSS and scripts (assets/) are
// embedded and parsed once by New. Render is pure: it validates the page data
// (URLs must be absolute http(s), colours #RRGGBB, positions from a fixed
// list) and executes html/template, which escapes every user string for its
// context.
//
// Invariant: no user-controlled string is ever placed inside a <script> or
// <style> element. Inline scripts and styles are fixed files whose SHA-256
// hashes are listed in the Content-Security-Policy (no 'unsafe-inline', no
// nonce); the per-request values they need (destination, countdown, pixel
// ids) travel in escaped data-* attributes that the scripts read. The frame
// and overlay pages carry assets/frame.js: when the destination refuses to
// be framed (X-Frame-Options or frame-ancestors, which browsers report to
// no script), it navigates the top window to the destination. The only
// dynamic style block, the overlay's colours, is built from validated hex
// colours and hashed per render.
package visitorpage

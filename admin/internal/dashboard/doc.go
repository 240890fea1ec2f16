// Package dashboard is kurz's web interface for the people who manage
// links: sign-up, sign-in, the account page, the home page (click totals,
// top and recent links), the link table (search, campaign and channel
// filters, QR thumbnails served by the edge, bulk delete) with its create,
// edit and delete forms, and each link's statistics (server-rendered SVG chart and world
// map, breakdowns, CSV; stats.go, reading through the API server's stats
// reads like the rest), QR codes (with their scans), campaigns, channels,
// pixels, branded domains, and splash pages and overlays with a live
// preview of the visitor's page (the edge's own rendering, shared/
// visitorpage, in a sandboxed frame: visitorpreview.go). It is served by the admin process under
// "/" of KURZ_ADMIN_ADDR (the API keeps /api), and alone on
// KURZ_DASHBOARD_ADDR when that is set.
//
// It adds no second implementation of any rule: every write goes through
// the API server's own functions (api.Server.AddLink, UpdateLink, AddQR,
// AddPixel, AddCampaign, AddChannel, AddDomain, AddOverlay, AddSplash and
// their updates and deletes, DeleteLinks, Register, UpdateAccount, its
// password hashing cap and its
// rate-limit counters), so a form and a JSON request are refused for the same reasons
// with the same messages, which the pages show next to the field named in
// them.
//
// Pages are server-rendered html/template with progressive enhancement:
// every action works without JavaScript; the one script (assets/app.js)
// adds copy buttons and the link table's "select all". Assets are embedded, served under a content hash
// (/assets/<hash>/<name>) and cached immutable. Every page carries a
// strict Content-Security-Policy whose only script source is a per-request
// nonce; no CDN, no external font.
//
// Security, in the order a request meets it (server.go):
//   - security headers and the CSP nonce (headers.go);
//   - the session: a random id in an HttpOnly, SameSite=Lax cookie (Secure
//     over https), stored only as its SHA-256 in PostgreSQL with a sliding
//     expiry and an absolute lifetime (session.go); never in a URL;
//   - every POST: a cross-origin check (Sec-Fetch-Site / Origin) and a
//     CSRF token, an HMAC of the session id (or, before sign-in, of a
//     random pre-session cookie) under a key derived from KURZ_SECRET
//     (csrf.go);
//   - sign-in and the current-password checks of the account page are
//     throttled per client, per account and per source of an account, with
//     the policy of the edge's link passwords (throttle.go).
//
// Another user's record looks exactly like a missing one: 404.
package dashboard

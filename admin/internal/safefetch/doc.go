// Package safefetch fetches user-supplied URLs (QR logos; the headers of
// frame and overlay destinations) without letting them reach internal
// services (SSRF).
//
// The address check runs at dial time on the resolved IP, inside
// net.Dialer.Control, so DNS rebinding, redirects, odd IP spellings and
// hostnames such as "localhost" are all judged by the address actually
// connected to, and a refused address never sees a packet.
package safefetch

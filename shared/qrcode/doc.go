// Package qrcode builds, validates and renders the QR codes of kurz.
//
// The admin API uses BuildContent, ParseRGB, CheckContrast, CheckFit,
// ParseDataURI and PrepareLogo to validate a request, to compute the exact
// string a code encodes and to store a logo pre-scaled (decoded once, at
// write time); the edge uses Render, with the stored logo held as a Logo
// (decoded on its first render only), to turn that stored string into a PNG
// or SVG image at /qr/{code}. Everything here is pure (no I/O), so both
// processes can share it.
//
// Invariant: Render only ever emits numbers and base64 image data into SVG; no
// user-controlled text reaches the markup.
package qrcode

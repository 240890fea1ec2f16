package link

import (
	"encoding/json"
	"time"
)

// QR is a user's QR code (spec 2.11). The image itself is not stored: the
// edge renders Content with the colours and logo at /qr/{Code}.
type QR struct {
	ID     int64
	UserID int64
	// Code is the public identifier in /qr/{code} (image) and /q/{code}
	// (scan redirect of link codes). It never changes, so printed images stay
	// valid across updates.
	Code string
	Name string
	Type string // one of the qrcode.Type* constants
	// Data is the request's data as given (a JSON string or object).
	Data json.RawMessage
	// Content is the exact string the image encodes.
	Content string
	// TargetURL is where /q/{code} redirects; set for link codes only.
	TargetURL  string
	Background string // "rgb(r,g,b)"
	Foreground string // "rgb(r,g,b)"
	// HasLogo says a logo is stored. Logo holds its bytes only when they
	// are being written; reads never load them.
	HasLogo   bool
	Logo      []byte
	ChannelID *int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// QR code limits.
const (
	// QRCodeLen is the length of a random base62 code: 62^8 ≈ 2·10^14, so
	// a collision (retried) is practically never seen and codes cannot be
	// enumerated.
	QRCodeLen = 8
	// MaxQRCodeAttempts bounds the retries on a taken code.
	MaxQRCodeAttempts = 5
	// MaxQRName bounds a QR code's name.
	MaxQRName = 100
)

// QRImageURL is the public image URL of a code, served by the edge.
func QRImageURL(baseURL, code string) string { return baseURL + "/qr/" + code }

// QRScanURL is the tracking URL a link code encodes: the edge counts the
// scan and redirects to the target.
func QRScanURL(baseURL, code string) string { return baseURL + "/q/" + code }

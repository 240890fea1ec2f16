package stats

import (
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/click"
	"kurz/shared/link"
)

// TopN is how many values a breakdown (top countries, referrers, browsers,
// operating systems) lists.
const TopN = 10

// Service answers stats queries from ClickHouse.
type Service struct {
	conn driver.Conn
}

// New returns a service reading through conn.
func New(conn driver.Conn) *Service { return &Service{conn: conn} }

// Count is one entry of a breakdown: a display name and its human clicks.
type Count struct {
	Name string
	N    uint64
}

// Breakdown is the top-N lists and the referrer categories of a set of
// human clicks.
type Breakdown struct {
	Countries []Count // lower-case English country names, "unknown" when not known
	Referrers []Count // referrer hosts, "direct" for visits without a referrer
	Browsers  []Count
	OS        []Count
	// Categories maps every referrer category seen (socialnetwork, microblog,
	// searchengine, photosharing, messaging, email, direct, other) to its
	// human clicks; absent categories are zero.
	Categories map[string]uint64
}

// Summary is the all-time stats of one link or QR code.
type Summary struct {
	Clicks         uint64 // human visits
	UniqueClicks   uint64 // distinct visitor ids among human visits
	BotClicks      uint64
	PreviewClicks  uint64
	PrefetchClicks uint64
	Breakdown
}

// Freshness says up to when clicks are in ClickHouse.
type Freshness struct {
	// IngestedUntil: every click captured before this instant is counted.
	IngestedUntil time.Time
	// LagMs is the largest current ingest lag among running edges.
	LagMs uint64
	// Writers is the number of edge pipelines that reported in the last 30 s.
	Writers uint64
}

// kindName is the Enum8 name of k in the ClickHouse tables.
func kindName(k click.Kind) (string, error) {
	switch k {
	case click.KindLink:
		return "link", nil
	case click.KindQR:
		return "qr", nil
	}
	return "", fmt.Errorf("stats: unknown kind %d", k)
}

// unavailable marks a ClickHouse failure so the API answers 503 rather than
// 500: the numbers exist, they just cannot be read right now.
func unavailable(what string, err error) error {
	return fmt.Errorf("%s: %w: %v", what, link.ErrUnavailable, err)
}

package stats

import (
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"kurz/shared/chstore"
)

// TopN is how many values a breakdown lists (chstore.TopN).
const TopN = chstore.TopN

// Service answers stats queries from ClickHouse.
type Service struct {
	conn    driver.Conn
	ranks   *rankCache
	parts   *partRanks
	partsOn atomic.Int32 // partsUnknown until OwnerTableDistributed answers
	uniques *uniqueCache
	series  *seriesCache
	fresh   *freshCache
}

// New returns a service reading through conn.
func New(conn driver.Conn) *Service {
	return &Service{conn: conn, ranks: newRankCache(), parts: newPartRanks(), uniques: newUniqueCache(), series: newSeriesCache(), fresh: newFreshCache()}
}

// The summary types live in shared/chstore, which also serves the edge's
// public stats page: one definition of the numbers for both.
type (
	// Count is one entry of a breakdown: a display name and its human clicks.
	Count = chstore.Count
	// Breakdown is the top-N lists and the referrer categories of a set of
	// human clicks.
	Breakdown = chstore.Breakdown
	// RangeBreakdown is a range's Breakdown with its device classes and
	// every country code.
	RangeBreakdown = chstore.RangeBreakdown
	// Summary is the all-time stats of one link or QR code.
	Summary = chstore.Summary
	// Counts is one target's all-time visits by class.
	Counts = chstore.Counts
)

// Freshness says up to when clicks are in ClickHouse.
type Freshness struct {
	// IngestedUntil: every click captured before this instant is counted.
	IngestedUntil time.Time
	// LagMs is the largest current ingest lag among running edges.
	LagMs uint64
	// Writers is the number of edge pipelines that reported in the last 30 s.
	Writers uint64
}

package stats

import (
	"time"

	"kurz/shared/click"
)

// RankCacheCounts reports the ranking cache's hits and misses so far.
func (s *Service) RankCacheCounts() (hits, misses int) {
	s.ranks.mu.Lock()
	defer s.ranks.mu.Unlock()
	return s.ranks.hits, s.ranks.misses
}

// RankDirectReads reports how many rankings were read without the owner's
// total first (the owner's clicks kept coming).
func (s *Service) RankDirectReads() int {
	s.ranks.mu.Lock()
	defer s.ranks.mu.Unlock()
	return s.ranks.direct
}

// SetFreshnessClock replaces the clock RecentFreshness ages its kept value by.
func (s *Service) SetFreshnessClock(now func() time.Time) {
	s.fresh.mu.Lock()
	defer s.fresh.mu.Unlock()
	s.fresh.now = now
}

// UniqueCacheCounts reports the unique clicks cache's hits and misses so far.
func (s *Service) UniqueCacheCounts() (hits, misses int) {
	s.uniques.mu.Lock()
	defer s.uniques.mu.Unlock()
	return s.uniques.hits, s.uniques.misses
}

// PartRankCounts reports the part-kept rankings' reads so far: rankings
// read whole, parts read to bring one up to date, and lists that found
// the kept parts.
func (s *Service) PartRankCounts() (full, parts, hits int) {
	s.parts.mu.Lock()
	defer s.parts.mu.Unlock()
	return s.parts.full, s.parts.parts, s.parts.hits
}

// KeepRankingsByParts turns the part-kept rankings on or off (off: the
// rankCache's way, as on a cluster).
func (s *Service) KeepRankingsByParts(on bool) {
	if on {
		s.partsOn.Store(partsOn)
	} else {
		s.partsOn.Store(partsOff)
	}
}

// AgePartRanking makes (link, owner)'s part-kept ranking look read whole
// d earlier, and its kept blocks reach up to at least block.
func (s *Service) AgePartRanking(owner int64, d time.Duration, block int64) {
	s.parts.mu.Lock()
	e := s.parts.entries[rankKey{click.KindLink, owner}]
	s.parts.mu.Unlock()
	e.turn <- struct{}{}
	defer func() { <-e.turn }()
	e.state.whole = e.state.whole.Add(-d)
	e.state.maxBlock = max(e.state.maxBlock, block)
}

// SeriesCacheCounts reports the range series cache's hits and misses.
func (s *Service) SeriesCacheCounts() (hits, misses int) {
	s.series.mu.Lock()
	defer s.series.mu.Unlock()
	return s.series.hits, s.series.misses
}

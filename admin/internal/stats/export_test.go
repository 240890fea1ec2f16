package stats

import "time"

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

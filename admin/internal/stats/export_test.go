package stats

// RankCacheCounts reports the ranking cache's hits and misses so far.
func (s *Service) RankCacheCounts() (hits, misses int) {
	s.ranks.mu.Lock()
	defer s.ranks.mu.Unlock()
	return s.ranks.hits, s.ranks.misses
}

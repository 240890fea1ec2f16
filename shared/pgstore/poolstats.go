package pgstore

import "kurz/shared/obs"

// PoolStats is a snapshot of the connection pool for /metrics.
func (s *Store) PoolStats() obs.PoolStats {
	st := s.pool.Stat()
	return obs.PoolStats{
		MaxConns: st.MaxConns(), TotalConns: st.TotalConns(), IdleConns: st.IdleConns(),
		AcquiredConns: st.AcquiredConns(), ConstructingConns: st.ConstructingConns(),
		AcquireCount: st.AcquireCount(), EmptyAcquireCount: st.EmptyAcquireCount(),
		CanceledAcquireCount: st.CanceledAcquireCount(), NewConns: st.NewConnsCount(),
		MaxLifetimeDestroys: st.MaxLifetimeDestroyCount(), MaxIdleDestroys: st.MaxIdleDestroyCount(),
		AcquireDuration: st.AcquireDuration(),
	}
}
